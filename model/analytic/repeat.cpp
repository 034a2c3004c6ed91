// Repeated (repeat.hpp): iteration 0 scheduled alone, the rest read from it where each
// begins on an idle worker.
#include "model/analytic/repeat.hpp"

namespace possim::analytic {

namespace {

std::vector<double> ends(const Schedule& s, int k) {
  std::vector<double> end(std::size_t(k), 0.0);
  for (int t = 0; t < k; ++t)
    for (std::size_t i = 0; i < s.n; ++i) end[std::size_t(t)] = std::max(end[std::size_t(t)], s.finish[s.id(t, i)]);
  return end;
}

// Whether every iteration repeats iteration 0, as scheduled alone in `one` (ending at
// `end`): all iterations with the same inputs, each beginning when the one before has ended.
// A root task is ready in iteration t + 1 once its dependencies on iteration t have ended;
// where one of them is the last instance of t, for every root, nothing of t + 1 is ready
// before t has ended, and at that moment every root is, as in iteration 0 at time 0: the
// worker is idle and the same schedule follows (its other tasks wait on roots in their own
// iteration, and whatever they also wait on in iteration t has ended). A dependency two
// iterations back reaches past that idle moment: such plans (SSP) are scheduled whole.
bool every_iteration_repeats(const SyncPlan& plan, const std::vector<IterationInput>& inputs, const Schedule& one,
                             double end) {
  if (!(end > 0)) return false;
  for (const IterationInput& in : inputs)
    if (in.slowdown != inputs[0].slowdown || in.active_share != inputs[0].active_share) return false;
  for (const Task& t : plan.tasks) {
    bool root = true;
    double ready = 0;  // when the task's dependencies on the iteration before have ended
    for (const Dep& d : t.deps) {
      if (d.lag > 1) return false;
      if (d.lag == 0) root = false;
      else ready = std::max(ready, one.finish[one.id(0, d.task)]);
    }
    if (root && ready < end) return false;
  }
  return true;
}

// Iteration 0 alone where every iteration repeats it, else all of them: `scheduled` says
// how many, `end` when each ended.
Schedule schedule_one_or_all(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs,
                             bool reuse, int& scheduled, std::vector<double>& end) {
  if (reuse && inputs.size() > 1) {
    Schedule one = fluid_schedule(plan, p, {inputs[0]});
    end = ends(one, 1);
    if (every_iteration_repeats(plan, inputs, one, end[0])) {
      scheduled = 1;
      return one;
    }
  }
  scheduled = int(inputs.size());
  Schedule all = fluid_schedule(plan, p, inputs);
  end = ends(all, scheduled);
  return all;
}

}  // namespace

Repeated::Repeated(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs, bool reuse)
    : k_(int(inputs.size())), s_(schedule_one_or_all(plan, p, inputs, reuse, scheduled_, end_)) {}

std::vector<int> Repeated::sources() const {
  std::vector<int> v;
  for (int t = 0; t < k_; ++t) v.push_back(source(t));
  return v;
}

}  // namespace possim::analytic
