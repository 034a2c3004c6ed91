#include "model/run/result.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace possim {

void Result::finish(double single_gpu_images_per_s_in) {
  images_per_s = iteration_s > 0 ? double(batch_per_gpu) * cluster.total_gpus() / iteration_s : 0;
  single_gpu_images_per_s = single_gpu_images_per_s_in;
  speedup = single_gpu_images_per_s > 0 ? images_per_s / single_gpu_images_per_s : 0;
  efficiency = cluster.total_gpus() > 0 ? speedup / cluster.total_gpus() : 0;
}

Result::Spread Result::iteration_spread() const {
  Spread out;
  if (iteration_end_s.size() < 2) return out;
  std::vector<double> d;
  for (std::size_t t = 1; t < iteration_end_s.size(); ++t) d.push_back(iteration_end_s[t] - iteration_end_s[t - 1]);
  out.min_s = *std::min_element(d.begin(), d.end());
  out.max_s = *std::max_element(d.begin(), d.end());
  double mean = 0, var = 0;
  for (double x : d) mean += x / double(d.size());
  for (double x : d) var += (x - mean) * (x - mean) / double(d.size());
  out.stdev_s = std::sqrt(var);
  // Iterations alike in exact arithmetic differ by the rounding of their end times: each
  // is a chain of sums of absolute times (and, slowed by interference, of segments at each
  // change of rate), tens of ulps of the last end: below that the spread is noise, not a
  // figure (1e-14 s printed).
  const double resolution = 64 * std::numeric_limits<double>::epsilon() * iteration_end_s.back();
  if (out.max_s - out.min_s <= resolution) {
    out.min_s = out.max_s = mean;
    out.stdev_s = 0;
  }
  return out;
}

std::size_t Result::dropped_worker_steps() const {
  std::size_t n = 0;
  for (const auto& w : dropped_workers) n += w.size();
  return n;
}

}  // namespace possim
