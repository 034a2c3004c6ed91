// The analytic engine's schedule with compute/communication interference (schedule.hpp).
#include <algorithm>
#include <limits>

#include "model/analytic/schedule.hpp"
#include "model/plan/interference.hpp"
#include "model/plan/work_count.hpp"

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
      : plan_(plan), p_(p), in_(inputs), k_(int(inputs.size())), s_(plan, k_), pending_(s_.start.size()) {
    holder_.fill(InstanceTiming::kNone);
    launch_s_ = plan.rates.collective_launch_s;
  }

  Schedule run() {
    ready_ = initially_ready(plan_, s_, k_, pending_);
    for (;;) {
      const int slot = next_finish();
      const double tv = slot >= 0 ? run_[slot].finish : kInf;
      const double tc = comm_events_.empty() ? kInf : comm_events_.top().time;
      const double th = ready_.empty() ? kInf : ready_.top().ready_s;
      if (slot < 0 && comm_events_.empty() && ready_.empty()) break;
      if (tv <= tc && tv <= th) finish_variable(slot);
      else if (tc <= th) comm_event();
      else pop_ready();
    }
    work::count(listed_);
    return std::move(s_);
  }

 private:
  static constexpr double kInf = std::numeric_limits<double>::infinity();
  enum Slot { kKernel, kTransfer, kSlots };
  // An instance whose speed changes: its work left at full speed since `since`.
  struct Running {
    bool on = false;
    bool comm_counted = false;  // a transfer's kernel counts as communication in flight
    std::size_t me = 0;
    int t = 0;
    std::uint32_t i = 0;
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
      if (run_[k].on && (best < 0 || run_[k].finish < run_[best].finish)) best = k;
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
    const double transfer = run_[kKernel].on ? plan_.rates.interference_comm_slowdown : 1.0;
    for (int k = 0; k < kSlots; ++k) {
      Running& r = run_[k];
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
      Running& r = run_[kTransfer];
      if (!r.on || std::int64_t(r.me) != e.transfer || r.comm_counted) return;
      r.comm_counted = true;
    }
    count_comm(e.time, e.delta);
  }

  void pop_ready() {
    ++listed_;
    const double r = ready_.top().ready_s;
    const int t = int(ready_.top().key >> 32);
    const std::uint32_t i = std::uint32_t(ready_.top().key);
    ready_.pop();
    const std::size_t me = s_.id(t, i);
    const int slot = slot_of(plan_.tasks[i]);
    if (slot >= 0) {
      if (run_[slot].on || waiting_head_[slot] < waiting_[slot].size()) waiting_[slot].push_back(me);
      else start_variable(slot, me, r);
      return;
    }
    // Neither slowed nor held up by what is: list scheduling as without interference.
    InstanceTiming& x = s_.path.at(me);
    const auto [dur, hold] = instance_cost(plan_, p_, i, in_[std::size_t(t)]);
    double start = r;
    for (int res : p_.held[i].res)
      if (res >= 0 && free_at_[std::size_t(res)] > start) {
        start = free_at_[std::size_t(res)];
        x.queued_behind = holder_[std::size_t(res)];
      }
    for (int res : p_.held[i].res)
      if (res >= 0) {
        free_at_[std::size_t(res)] = start + hold;
        holder_[std::size_t(res)] = std::int64_t(me);
      }
    const Task& task = plan_.tasks[i];
    if (runs_comm_kernel(task)) {
      const double end = start + dur;
      const double begin = std::min(end, start + (task.pattern == FlowPattern::collective ? launch_s_ : 0.0));
      if (end > begin) {
        comm_events_.push(CommEvent{begin, +1, InstanceTiming::kNone});
        comm_events_.push(CommEvent{end, -1, InstanceTiming::kNone});
      }
    }
    done(me, t, i, start, start + dur);
  }

  void start_variable(int slot, std::size_t me, double now) {
    const int t = int(me / s_.n);
    const std::uint32_t i = std::uint32_t(me % s_.n);
    InstanceTiming& x = s_.path.at(me);
    const int res = p_.held[i].res[0];
    if (free_at_[std::size_t(res)] > x.ready_s) x.queued_behind = holder_[std::size_t(res)];
    Running& r = run_[slot];
    r = Running{};
    r.on = true;
    r.me = me;
    r.t = t;
    r.i = i;
    r.start = r.since = now;
    r.left = instance_cost(plan_, p_, i, in_[std::size_t(t)]).first;
    r.finish = now + r.left;
    if (slot == kTransfer) {
      const Task& task = plan_.tasks[i];
      const double launch = task.pattern == FlowPattern::collective ? launch_s_ : 0.0;
      if (launch > 0) comm_events_.push(CommEvent{now + launch, +1, std::int64_t(me)});
      else if (r.left > 0) {
        r.comm_counted = true;
        crossed_zero(comm_, +1);
      }
    }
    rerate(now);
  }

  void finish_variable(int slot) {
    Running& r = run_[slot];
    const double end = r.finish;
    r.on = false;
    const Running ran = r;
    if (slot == kTransfer && ran.comm_counted) crossed_zero(comm_, -1);
    rerate(end);
    const int res = p_.held[ran.i].res[0];
    free_at_[std::size_t(res)] = end;
    holder_[std::size_t(res)] = std::int64_t(ran.me);
    done(ran.me, ran.t, ran.i, ran.start, end);
    if (waiting_head_[slot] < waiting_[slot].size()) start_variable(slot, waiting_[slot][waiting_head_[slot]++], end);
  }

  // Instance `me` ran from start to end: its timing, and its dependents' readiness.
  void done(std::size_t me, int t, std::uint32_t i, double start, double end) {
    InstanceTiming& x = s_.path.at(me);
    s_.start[me] = x.start_s = start;
    s_.finish[me] = end;
    x.task = i;
    const bool gpu = plan_.tasks[i].resource == Resource::gpu;
    x.slowdown = gpu ? float(in_[std::size_t(t)].slowdown) : 1.0f;
    s_.path.finished(me, t, end);
    if (gpu) s_.path.gpu_busy(me, start, end);
    for (const Dep& d : p_.dependents[i]) {
      const int u = t + int(d.lag);
      if (u >= k_) continue;
      const std::size_t j = s_.id(u, d.task);
      InstanceTiming& y = s_.path.at(j);
      if (end >= y.ready_s) {
        y.ready_s = end;
        y.released_by = std::int64_t(me);
      }
      if (--pending_[j] == 0) ready_.emplace(y.ready_s, u, d.task);
    }
    listed_ += p_.dependents[i].size();
  }

  const SyncPlan& plan_;
  const Prepared& p_;
  const std::vector<IterationInput>& in_;
  int k_;
  Schedule s_;
  std::vector<int> pending_;
  ReadyHeap ready_;
  std::priority_queue<CommEvent, std::vector<CommEvent>, std::greater<CommEvent>> comm_events_;
  std::array<Running, kSlots> run_{};
  std::array<std::vector<std::size_t>, kSlots> waiting_;
  std::array<std::size_t, kSlots> waiting_head_{};
  std::array<double, kNumRes> free_at_{};
  std::array<std::int64_t, kNumRes> holder_;
  int comm_ = 0;  // communication kernels in flight
  double launch_s_ = 0;
  std::uint64_t listed_ = 0;
};

}  // namespace

Schedule interfered_schedule(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs) {
  return InterferedScheduler(plan, p, inputs).run();
}

}  // namespace possim::analytic
