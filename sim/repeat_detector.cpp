#include "sim/repeat_detector.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace possim::sim {

RepeatDetector::RepeatDetector(int iterations, std::size_t instances, bool enabled)
    : k_(iterations), n_(instances), enabled_(enabled) {
  const std::size_t k = std::size_t(iterations);
  started_.assign(k * n_, 0);
  finished_.assign(k * n_, 0);
  left_.assign(k, n_);
  iter_end_.assign(k, 0);
  first_launch_.assign(k, std::numeric_limits<double>::infinity());
  flow_end_sum_.assign(k, 0);
  flows_.assign(k, 0);
  collectives_.assign(k, 0);
}

void RepeatDetector::launched(int t, std::size_t instance, double now) {
  started_[std::size_t(t) * n_ + instance] = now;
  first_launch_[std::size_t(t)] = std::min(first_launch_[std::size_t(t)], now);
}

void RepeatDetector::collective_launched(int t) { ++collectives_[std::size_t(t)]; }

void RepeatDetector::flow_landed(int t, double now) {
  ++flows_[std::size_t(t)];
  flow_end_sum_[std::size_t(t)] += now;
}

bool RepeatDetector::completed(int t, std::size_t instance, double now) {
  finished_[std::size_t(t) * n_ + instance] = now;
  if (--left_[std::size_t(t)] != 0) return false;
  iter_end_[std::size_t(t)] = now;
  return true;
}

void RepeatDetector::end_iteration(int t) {
  if (!enabled_ || steady_ >= 0 || t < 1 || t + 1 >= k_ || !repeats(t)) return;
  steady_ = t;
  period_ = iter_end_[std::size_t(t)] - iter_end_[std::size_t(t - 1)];
}

// The tolerance is rounding of absolute clock values, far below anything printed.
bool RepeatDetector::repeats(int t) const {
  const std::size_t now = std::size_t(t), before = now - 1;
  const double origin_before = t >= 2 ? iter_end_[now - 2] : 0.0;
  const double origin = iter_end_[before];
  if (first_launch_[before] < origin_before || first_launch_[now] < origin) return false;
  // A later collective already under way could not finish once its peers stop launching.
  for (int u = t + 1; u < k_; ++u)
    if (first_launch_[std::size_t(u)] < iter_end_[now] || collectives_[std::size_t(u)] > 0) return false;
  const double period = iter_end_[now] - origin, tol = 1e-9 * period;
  if (std::abs(period - (origin - origin_before)) > tol || flows_[now] != flows_[before]) return false;
  const double flows = double(flows_[now]);
  if (std::abs((flow_end_sum_[now] - flows * origin) - (flow_end_sum_[before] - flows * origin_before)) >
      tol * std::max(1.0, flows))
    return false;
  for (std::size_t i = 0; i < n_; ++i) {
    const std::size_t a = before * n_ + i, b = now * n_ + i;
    if (std::abs((started_[b] - origin) - (started_[a] - origin_before)) > tol ||
        std::abs((finished_[b] - origin) - (finished_[a] - origin_before)) > tol)
      return false;
  }
  return true;
}

}  // namespace possim::sim
