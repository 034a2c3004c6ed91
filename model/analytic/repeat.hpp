// Iterations that repeat. Under BSP each iteration of an undisturbed plan begins once the
// one before has ended: every task that waits on nothing in its own iteration waits on the
// last instance of the one before. Iteration t then starts from an idle worker with the
// same work and inputs as iteration 0 started at time 0, and is iteration 0 shifted by t
// periods. So the engine schedules iteration 0 alone and, where that holds, reads the others
// from it, shifted; otherwise it schedules all of them. The SimGrid engine does the same
// (sim/repeat_detector.hpp) from iterations it watches run; here the condition is read
// off iteration 0's schedule: every root task (no dependency in its own iteration) has a
// dependency on the iteration before that ends last, and none on an earlier one.
#pragma once

#include <algorithm>
#include <vector>

#include "model/analytic/schedule.hpp"

namespace possim::analytic {

class Repeated {
 public:
  // The schedule of k = inputs.size() iterations, as fluid_schedule gives it (to rounding
  // of absolute times); `reuse` false schedules all of them.
  Repeated(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs, bool reuse);

  int iterations() const { return k_; }
  int scheduled() const { return scheduled_; }  // iterations 0..scheduled-1 were scheduled
  int source(int t) const { return std::min(t, scheduled_ - 1); }
  // Iteration 0 begins at 0, so its end is the period of those read from it.
  double shift(int t) const { return double(t - source(t)) * end_[0]; }
  double start(int t, std::size_t i) const { return s_.start[s_.id(source(t), i)] + shift(t); }
  double finish(int t, std::size_t i) const { return s_.finish[s_.id(source(t), i)] + shift(t); }
  // When iteration t's last instance ends.
  double end(int t) const { return end_[std::size_t(source(t))] + shift(t); }
  // Per iteration, the scheduled iteration it is read from (fill_breakdown's `source`).
  std::vector<int> sources() const;
  const Schedule& schedule() const { return s_; }

 private:
  int k_, scheduled_ = 0;
  std::vector<double> end_;  // per scheduled iteration (written as s_ is made)
  Schedule s_;
};

}  // namespace possim::analytic
