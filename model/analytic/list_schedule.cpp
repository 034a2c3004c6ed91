// List scheduling of the representative worker (schedule.hpp), and one fluid pass of it
// over a given schedule's overlaps: the check that the interfered schedule is their fixed point.
#include <algorithm>
#include <cmath>

#include "model/analytic/schedule.hpp"
#include "model/plan/interference.hpp"
#include "model/plan/task_cost.hpp"
#include "model/plan/work_count.hpp"

namespace possim::analytic {

namespace {

// Disjoint intervals of time, sorted: when something is in flight.
class Busy {
 public:
  void add(double a, double b) {
    if (b > a) v_.emplace_back(a, b);
  }
  void merge() {
    std::sort(v_.begin(), v_.end());
    std::vector<std::pair<double, double>> m;
    for (const auto& x : v_)
      if (!m.empty() && x.first <= m.back().second) m.back().second = std::max(m.back().second, x.second);
      else m.push_back(x);
    v_ = std::move(m);
  }
  // When work of `seconds` started at `start` ends, where it progresses at 1/slowdown of
  // its rate inside the intervals (the fluid model) and at its rate outside.
  double finish(double start, double seconds, double slowdown) const {
    auto it = std::upper_bound(v_.begin(), v_.end(), start,
                               [](double x, const std::pair<double, double>& y) { return x < y.second; });
    double t = start, left = seconds;
    for (; it != v_.end(); ++it) {
      if (t < it->first) {
        if (left <= it->first - t) return t + left;
        left -= it->first - t;
        t = it->first;
      }
      const double inside = (it->second - t) / slowdown;  // work done before it ends
      if (left <= inside) return t + left * slowdown;
      left -= inside;
      t = it->second;
    }
    return t + left;
  }

 private:
  std::vector<std::pair<double, double>> v_;
};

// Compute/communication interference (model/plan/interference.hpp): when a worker's
// communication kernels and GPU kernels are in flight, as a given schedule has them
// (for the fixed-point check, fluid_pass_gap).
struct Interference {
  Busy comm, kernels;
};

// List scheduling: an instance starts when its deps are done and its resources are free;
// ties go to the instance that became ready first. `inter`, where given: kernels and
// GPU-to-GPU transfers progress at the plan's slowed rates where the other kind is in
// flight (Interference).
Schedule list_schedule(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs,
                       const Interference* inter) {
  ScheduleRun run(plan, p, inputs);
  while (!run.ready.empty()) {
    const double r = run.ready.top().ready_s;
    const int t = int(run.ready.top().key >> 32);
    const std::uint32_t i = std::uint32_t(run.ready.top().key);
    run.ready.pop();
    const std::size_t me = run.s.id(t, i);
    auto [dur, hold] = instance_cost(plan, p, i, inputs[std::size_t(t)]);
    const double start = run.earliest(p.held[i], r, run.s.path.at(me));
    if (inter) {
      const Task& task = plan.tasks[i];
      double d = dur;
      if (task.resource == Resource::gpu)
        d = inter->comm.finish(start, dur, plan.rates.interference_kernel_slowdown) - start;
      else if (slowed_by_kernels(task))
        d = inter->kernels.finish(start, dur, plan.rates.interference_comm_slowdown) - start;
      hold += d - dur;
      dur = d;
    }
    run.hold(p.held[i], start + hold, me);
    run.ran(t, i, start, start + dur);
  }
  return run.finish();
}

// When a schedule has each worker's communication kernels and GPU kernels in flight.
Interference in_flight(const SyncPlan& plan, const Schedule& s, int k) {
  Interference in;
  for (int t = 0; t < k; ++t)
    for (std::size_t i = 0; i < s.n; ++i) {
      const Task& task = plan.tasks[i];
      const double a = s.start[s.id(t, i)], b = s.finish[s.id(t, i)];
      if (task.resource == Resource::gpu) in.kernels.add(a, b);
      // A collective's kernel runs after its launch (coordination and the launch itself).
      if (runs_comm_kernel(task)) in.comm.add(std::min(b, a + launch_seconds(plan.rates, task)), b);
    }
  in.comm.merge();
  in.kernels.merge();
  return in;
}

}  // namespace

ScheduleRun::ScheduleRun(const SyncPlan& plan_, const Prepared& p_, const std::vector<IterationInput>& inputs_)
    : plan(plan_), p(p_), inputs(inputs_), k(int(inputs_.size())), s(plan_, k), pending_(s.start.size()) {
  holder_.fill(InstanceTiming::kNone);
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
      y.released_by = std::int64_t(me);
    }
    if (--pending_[j] == 0) ready.emplace(y.ready_s, u, d.task);
  }
  listed_ += 1 + p.dependents[i].size();
}

Schedule ScheduleRun::finish() {
  work::count(listed_);
  return std::move(s);
}

Schedule list_schedule(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs) {
  return list_schedule(plan, p, inputs, nullptr);
}

// How far one fluid pass over a schedule's own overlaps moves its instances, as a fraction
// of its length: 0 for the fixed point.
double fluid_pass_gap(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs,
                      const Schedule& s) {
  const Interference used = in_flight(plan, s, int(inputs.size()));
  const Schedule again = list_schedule(plan, p, inputs, &used);
  double moved = 0, end = 0;
  for (std::size_t j = 0; j < s.finish.size(); ++j) {
    moved = std::max(moved, std::abs(again.finish[j] - s.finish[j]));
    end = std::max(end, s.finish[j]);
  }
  return end > 0 ? moved / end : 0;
}

}  // namespace possim::analytic
