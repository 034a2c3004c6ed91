// The analytic engine's schedule with compute/communication interference (schedule.hpp).
#include <algorithm>
#include <limits>

#include "model/analytic/schedule.hpp"
#include "model/plan/interference.hpp"
#include "model/plan/task_cost.hpp"

namespace possim::analytic {

namespace {

// The schedule with interference, exactly, in one pass: the list schedule above run in
// time order, where a kernel or a GPU-to-GPU transfer progresses at the rate the other kind
// in flight allows at each moment (the fluid model, as SimGrid's power states have it).
// Only these two kinds change speed, each holds a resource of its own (the GPU, the
// GPU-to-GPU link) and runs one at a time, so at most two instances are in flight with a
// finish not yet known; everything else starts and ends when list scheduling says, and a
// collective's kernel is a known interval. Events in time order: a running instance ends
// (first, so its resource is free at that time), a collective's kernel begins or ends,
// an instance becomes ready (popped in the list schedule's order). An instance that finds
// its variable resource held waits its turn behind those ready before it, as list
// scheduling would have it. The result is the fixed point of the fluid passes
// (interference_fixed_point_gap).
class InterferedScheduler {
 public:
  InterferedScheduler(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs)
      : plan_(plan), run_(plan, p, inputs) {}

  Schedule run() {
    for (;;) {
      const int slot = next_finish();
      if (slot < 0 && comm_events_.empty() && run_.ready.empty()) break;
      const double tv = slot >= 0 ? running_[std::size_t(slot)].finish : kInf;
      const double tc = comm_events_.empty() ? kInf : comm_events_.top().time;
      const double th = run_.ready.empty() ? kInf : run_.ready.top().ready_s;
      if (slot >= 0 && tv <= tc && tv <= th) finish_variable(slot);
      else if (tc <= th) comm_event();
      else pop_ready();
    }
    return run_.finish();
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  enum Slot { kKernel, kTransfer, kSlots };
  // An instance whose speed changes: its work left at full speed since `since`.
  struct Running {
    bool on = false;
    bool comm_counted = false;  // a transfer's kernel counts as communication in flight
    std::size_t me = 0;
    double start = 0, since = 0, left = 0, slowdown = 1, finish = kInf;
  };
  // A communication kernel begins (+1) or ends (-1); `transfer` names the GPU-to-GPU
  // transfer whose kernel begins after its launch, if it is still running then.
  struct CommEvent {
    double time;
    int delta;
    std::int64_t transfer;
    bool operator>(const CommEvent& o) const { return time > o.time; }
  };

  int next_finish() const {
    int best = -1;
    for (int k = 0; k < kSlots; ++k)
      if (running_[k].on && (best < 0 || running_[k].finish < running_[best].finish)) best = k;
    return best;
  }

  static int slot_of(const Task& task) {
    if (task.resource == Resource::gpu) return kKernel;
    if (task.resource == Resource::intra_node) return kTransfer;
    return -1;
  }

  // Sets each running instance's rate from what else is in flight from `now` on: the work
  // it did since its last change of rate is taken off at the old rate (segment by segment,
  // as the fluid model; an instance never slowed ends at start + duration exactly).
  void rerate(double now) {
    const double kernel = comm_ > 0 ? plan_.rates.interference_kernel_slowdown : 1.0;
    const double transfer = running_[kKernel].on ? plan_.rates.interference_comm_slowdown : 1.0;
    for (int k = 0; k < kSlots; ++k) {
      Running& r = running_[k];
      const double f = k == kKernel ? kernel : transfer;
      if (!r.on || f == r.slowdown) continue;
      r.left = std::max(0.0, r.left - (now - r.since) / r.slowdown);
      r.since = now;
      r.slowdown = f;
      r.finish = now + r.left * f;
    }
  }
  void count_comm(double now, int delta) {
    if (crossed_zero(comm_, delta)) rerate(now);
  }

  void comm_event() {
    const CommEvent e = comm_events_.top();
    comm_events_.pop();
    if (e.transfer != InstanceTiming::kNone) {  // a transfer's kernel, after its launch
      Running& r = running_[kTransfer];
      if (!r.on || std::int64_t(r.me) != e.transfer || r.comm_counted) return;
      r.comm_counted = true;
    }
    count_comm(e.time, e.delta);
  }

  void pop_ready() {
    const double r = run_.ready.top().ready_s;
    const int t = int(run_.ready.top().key >> 32);
    const std::uint32_t i = std::uint32_t(run_.ready.top().key);
    run_.ready.pop();
    const std::size_t me = run_.s.id(t, i);
    const int slot = slot_of(plan_.tasks[i]);
    if (slot >= 0) {
      if (running_[slot].on || waiting_head_[slot] < waiting_[slot].size()) waiting_[slot].push_back(me);
      else start_variable(slot, me, r);
      return;
    }
    // Neither slowed nor held up by what is: list scheduling as without interference.
    const auto [dur, hold] = instance_cost(plan_, run_.p, i, run_.inputs[std::size_t(t)]);
    const double start = run_.earliest(run_.p.held[i], r, run_.s.path.at(me));
    run_.hold(run_.p.held[i], start + hold, me);
    const Task& task = plan_.tasks[i];
    if (runs_comm_kernel(task)) {
      const double end = start + dur;
      const double begin = std::min(end, start + launch_seconds(plan_.rates, task));
      if (end > begin) {
        comm_events_.push(CommEvent{begin, +1, InstanceTiming::kNone});
        comm_events_.push(CommEvent{end, -1, InstanceTiming::kNone});
      }
    }
    run_.ran(t, i, start, start + dur);
  }

  // A kernel or transfer takes its resource now (it is free: only its own kind holds it).
  void start_variable(int slot, std::size_t me, double now) {
    const int t = int(me / run_.s.n);
    const std::uint32_t i = std::uint32_t(me % run_.s.n);
    InstanceTiming& x = run_.s.path.at(me);
    run_.earliest(run_.p.held[i], x.ready_s, x);  // what it waited behind, if it did
    Running& r = running_[slot];
    r = Running{};
    r.on = true;
    r.me = me;
    r.start = r.since = now;
    r.left = instance_cost(plan_, run_.p, i, run_.inputs[std::size_t(t)]).first;
    r.finish = now + r.left;
    if (slot == kTransfer) {
      const double launch = launch_seconds(plan_.rates, plan_.tasks[i]);
      if (launch > 0) comm_events_.push(CommEvent{now + launch, +1, std::int64_t(me)});
      else if (r.left > 0) {
        r.comm_counted = true;
        crossed_zero(comm_, +1);
      }
    }
    rerate(now);
  }

  void finish_variable(int slot) {
    Running& r = running_[slot];
    const double end = r.finish;
    r.on = false;
    if (slot == kTransfer && r.comm_counted) crossed_zero(comm_, -1);
    rerate(end);
    const int t = int(r.me / run_.s.n);
    const std::uint32_t i = std::uint32_t(r.me % run_.s.n);
    run_.hold(run_.p.held[i], end, r.me);
    run_.ran(t, i, r.start, end);
    if (waiting_head_[slot] < waiting_[slot].size()) start_variable(slot, waiting_[slot][waiting_head_[slot]++], end);
  }

  const SyncPlan& plan_;
  ScheduleRun run_;
  std::priority_queue<CommEvent, std::vector<CommEvent>, std::greater<CommEvent>> comm_events_;
  std::array<Running, kSlots> running_{};
  std::array<std::vector<std::size_t>, kSlots> waiting_;
  std::array<std::size_t, kSlots> waiting_head_{};
  int comm_ = 0;  // communication kernels in flight
};

}  // namespace

Schedule interfered_schedule(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs) {
  return InterferedScheduler(plan, p, inputs).run();
}

}  // namespace possim::analytic
