// ScheduleRun (schedule.hpp): the schedule being written, pending dependencies and the
// ready instances while the fluid schedule runs.
#include "model/analytic/schedule.hpp"
#include "model/plan/work_count.hpp"

namespace possim::analytic {

ScheduleRun::ScheduleRun(const SyncPlan& plan_, const Prepared& p_, const std::vector<IterationInput>& inputs_)
    : plan(plan_), p(p_), inputs(inputs_), k(int(inputs_.size())), s(plan_, k), pending_(s.start.size()) {
  std::vector<ReadyItem> storage;
  storage.reserve(s.start.size());
  ready = ReadyHeap(std::greater<ReadyItem>(), std::move(storage));
  for (int t = 0; t < k; ++t)
    for (std::size_t i = 0; i < s.n; ++i) {
      int need = 0;
      for (const Dep& d : plan.tasks[i].deps)
        if (t - int(d.lag) >= 0) ++need;
      pending_[s.id(t, i)] = need;
      if (need == 0) ready.emplace(0.0, t, std::uint32_t(i));
    }
}

void ScheduleRun::ran(int t, std::uint32_t i, double start, double end) {
  const std::size_t me = s.id(t, i);
  InstanceTiming& x = s.path.at(me);
  s.start[me] = x.start_s = start;
  s.finish[me] = end;
  x.task = i;
  const bool gpu = plan.tasks[i].resource == Resource::gpu;
  x.slowdown = gpu ? float(inputs[std::size_t(t)].slowdown) : 1.0f;
  s.path.finished(me, t, end);
  if (gpu) s.path.gpu_busy(me, start, end);
  for (const Dep& d : p.dependents[i]) {
    const int u = t + int(d.lag);
    if (u >= k) continue;
    const std::size_t j = s.id(u, d.task);
    InstanceTiming& y = s.path.at(j);
    if (end >= y.ready_s) {
      y.ready_s = end;
      y.released_by = InstanceRef(me);
    }
    if (--pending_[j] == 0) ready.emplace(y.ready_s, u, d.task);
  }
  listed_ += 1 + p.dependents[i].size();
}

Schedule ScheduleRun::finish() {
  work::count(listed_);
  return std::move(s);
}

}  // namespace possim::analytic
