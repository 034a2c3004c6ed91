#include "model/plan/stragglers.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace possim {

int StragglerTable::active(int iteration) const {
  const auto& d = dropped.at(std::size_t(iteration));
  return int(std::count(d.begin(), d.end(), 0));
}

StragglerTable make_stragglers(const StragglerModel& m, int iterations, int workers, std::uint64_t seed) {
  StragglerTable s;
  s.slowdown.assign(std::size_t(iterations), std::vector<double>(std::size_t(workers), 1.0));
  s.dropped.assign(std::size_t(iterations), std::vector<char>(std::size_t(workers), 0));
  if (m.kind == "lognormal") {
    // One engine, draws in (iteration, worker) order: the same seed gives the same table
    // on every machine (mt19937_64 is fully specified; the normal is made here by
    // Box-Muller so no library's distribution implementation can change it).
    std::mt19937_64 rng(seed);
    const auto uniform = [&] { return (double(rng() >> 11) + 0.5) * 0x1.0p-53; };
    for (auto& row : s.slowdown)
      for (double& f : row) {
        const double z = std::sqrt(-2.0 * std::log(uniform())) * std::cos(2.0 * M_PI * uniform());
        f = std::exp(m.sigma * z);
      }
  } else if (m.kind == "fixed") {
    for (auto& row : s.slowdown)
      for (int w = 0; w < workers; ++w)
        row[std::size_t(w)] = w < int(m.slowdown.size()) ? m.slowdown[std::size_t(w)] : 1.0;
  }
  if (m.drop_after > 0 && workers > 1) {
    for (std::size_t t = 0; t < s.slowdown.size(); ++t) {
      std::vector<double> sorted = s.slowdown[t];
      std::nth_element(sorted.begin(), sorted.begin() + long(sorted.size() / 2), sorted.end());
      const double median = sorted[sorted.size() / 2];
      for (std::size_t w = 0; w < sorted.size(); ++w)
        s.dropped[t][w] = s.slowdown[t][w] > m.drop_after * median ? 1 : 0;
    }
  }
  return s;
}

}  // namespace possim
