#include "model/planning/capacity.hpp"

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

namespace possim {

const char* to_string(Reach r) {
  switch (r) {
    case Reach::reached: return "reached";
    case Reach::below_grid: return "below_grid";
    case Reach::unreachable: return "unreachable";
  }
  return "?";
}

const std::vector<double>& default_bandwidth_grid() {
  static const std::vector<double> grid = {1, 2, 5, 10, 25, 40, 50, 100, 200, 400};
  return grid;
}

namespace {

constexpr double kWorthDoubling = 1.1;  // throughput gain below which more nodes do not pay

// The points a search has asked for, by the value it searches over, and how many.
template <class Key>
struct Probe {
  explicit Probe(std::function<Result(Key)> f) : eval(std::move(f)) {}
  std::function<Result(Key)> eval;
  std::map<Key, Result> seen;
  int evaluations = 0;
  const Result& operator()(Key k) {
    ++evaluations;
    return seen[k] = eval(k);
  }
};

Answer answer(Reach reach, int nodes, double gbps, Result r, int evaluations) {
  Answer a;
  a.reach = reach;
  a.nodes = nodes;
  a.gbps = gbps;
  a.binding = binding_resource(r);
  a.at = std::move(r);
  a.evaluations = evaluations;
  return a;
}

// Integer search over node counts for the last n in [1, max] where holds(n), assuming
// holds is true up to some n and false after: doubling, then bisection.
template <class Holds>
int last_holding(int max, Holds holds, bool& none) {
  none = false;
  if (!holds(1)) {
    none = true;
    return 1;
  }
  int good = 1, bad = -1;
  while (bad < 0) {
    const int next = good >= max / 2 ? max : good * 2;
    if (next == good) return good;
    if (holds(next)) good = next;
    else bad = next;
    if (good == max) return good;
  }
  while (bad - good > 1) {
    const int mid = good + (bad - good) / 2;
    if (holds(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

}  // namespace

Answer min_bandwidth(const Evaluate& eval, int nodes, const std::vector<double>& grid, double target,
                     double relative_tolerance) {
  if (grid.empty()) throw std::invalid_argument("min_bandwidth: empty grid");
  Probe<double> probe{[&](double gbps) { return eval(nodes, gbps); }};
  const auto passes = [&](double gbps) { return probe(gbps).efficiency >= target; };
  const auto& seen = probe.seen;
  const int& evaluations = probe.evaluations;
  // The first grid point that reaches the target, by binary search over the grid
  // (efficiency does not fall as bandwidth grows).
  int lo = -1, hi = int(grid.size());
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (passes(grid[std::size_t(mid)])) hi = mid;
    else lo = mid;
  }
  if (hi == int(grid.size()))
    return answer(Reach::unreachable, nodes, grid.back(), seen.at(grid.back()), evaluations);
  if (hi == 0) return answer(Reach::below_grid, nodes, grid[0], seen.at(grid[0]), evaluations);
  // Between a miss and a hit: bisection by false position on log bandwidth (Illinois:
  // an end that stays put has its weight halved), each step at least a tenth into the
  // bracket, until the ends are within the tolerance or a hit is within half a point of
  // the target.
  double miss = grid[std::size_t(lo)], hit = grid[std::size_t(hi)];
  double f_miss = seen.at(miss).efficiency - target, f_hit = seen.at(hit).efficiency - target;
  int side = 0;
  while (hit / miss > 1 + relative_tolerance && f_hit > 0.005) {
    const double a = std::log(miss), b = std::log(hit);
    double x = f_hit - f_miss > 0 ? (a * f_hit - b * f_miss) / (f_hit - f_miss) : 0.5 * (a + b);
    x = std::min(std::max(x, a + 0.1 * (b - a)), b - 0.1 * (b - a));
    const double mid = std::exp(x);
    const bool ok = passes(mid);
    const double f = seen.at(mid).efficiency - target;
    if (ok) {
      hit = mid;
      f_hit = f;
      if (side == 1) f_miss /= 2;
      side = 1;
    } else {
      miss = mid;
      f_miss = f;
      if (side == -1) f_hit /= 2;
      side = -1;
    }
  }
  Answer out = answer(Reach::reached, nodes, hit, seen.at(hit), evaluations);
  for (const auto& [gbps, r] : seen)
    for (const auto& [faster, r2] : seen)
      if (faster > gbps && r2.efficiency + 1e-9 < r.efficiency)
        out.note = "efficiency fell from " + std::to_string(r.efficiency) + " at " + std::to_string(gbps) +
                   " Gbit/s to " + std::to_string(r2.efficiency) + " at " + std::to_string(faster) +
                   " Gbit/s: the search assumes it does not";
  return out;
}

Answer max_nodes(const Evaluate& eval, double gbps, int max, double target) {
  Probe<int> probe{[&](int n) { return eval(n, gbps); }};
  bool none = false;
  const int n = last_holding(max, [&](int m) { return probe(m).efficiency >= target; }, none);
  return answer(none ? Reach::unreachable : Reach::reached, n, gbps, probe.seen.at(n), probe.evaluations);
}

Answer min_nodes_for_throughput(const Evaluate& eval, double gbps, int max, double images_per_s) {
  Probe<int> probe{[&](int n) { return eval(n, gbps); }};
  const auto reaches = [&](int n) { return probe(n).images_per_s >= images_per_s; };
  const auto& seen = probe.seen;
  const int& evaluations = probe.evaluations;
  if (reaches(1)) return answer(Reach::below_grid, 1, gbps, seen.at(1), evaluations);
  // Doubling until a count reaches the throughput, or doubling stops paying.
  int shortfall = 1, enough = -1;
  std::string note;
  while (enough < 0) {
    const int next = std::min(max, shortfall * 2);
    if (next == shortfall) break;
    if (reaches(next)) {
      enough = next;
    } else {
      if (seen.at(next).images_per_s < kWorthDoubling * seen.at(shortfall).images_per_s) {
        note = "doubling from " + std::to_string(shortfall) + " to " + std::to_string(next) +
               " nodes adds under 10% throughput: more nodes do not pay at this NIC";
        shortfall = next;
        break;
      }
      shortfall = next;
    }
  }
  if (enough < 0) {
    Answer a = answer(Reach::unreachable, shortfall, gbps, seen.at(shortfall), evaluations);
    a.note = note;
    return a;
  }
  while (enough - shortfall > 1) {
    const int mid = shortfall + (enough - shortfall) / 2;
    if (reaches(mid)) enough = mid;
    else shortfall = mid;
  }
  return answer(Reach::reached, enough, gbps, seen.at(enough), evaluations);
}

}  // namespace possim
