#include "model/analytic/analytic_engine.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <limits>
#include <queue>

#include "model/input/error.hpp"
#include "model/plan/instance_graph.hpp"
#include "model/plan/interference.hpp"
#include "model/plan/node_load.hpp"
#include "model/plan/task_cost.hpp"
#include "model/plan/work_count.hpp"
#include "model/run/breakdown.hpp"

namespace possim {

namespace {

enum Res { gpu, pcie_d2h, pcie_h2d, d2d, server_cpu, worker_tx, worker_rx, server_tx, server_rx, host_cpu, kNumRes };

// Resources a task holds, as a small list (at most two: a NIC tx and a NIC rx).
struct Held {
  std::array<int, 2> res{{-1, -1}};
};

Held resources(const SyncPlan& plan, const Task& t, const NodeLoad& l) {
  Held h;
  const bool colocated = plan.cluster.placement == ServerPlacement::colocated;
  const auto tx = [&](Role r) { return r == Role::server && !colocated ? server_tx : worker_tx; };
  const auto rx = [&](Role r) { return r == Role::server && !colocated ? server_rx : worker_rx; };
  switch (t.resource) {
    case Resource::gpu: h.res[0] = gpu; break;
    case Resource::pcie_d2h: h.res[0] = pcie_d2h; break;
    case Resource::pcie_h2d: h.res[0] = pcie_h2d; break;
    case Resource::intra_node: h.res[0] = d2d; break;
    case Resource::server_cpu: h.res[0] = server_cpu; break;
    case Resource::network:
      h.res[0] = tx(l.tx_role);
      h.res[1] = rx(l.rx_role);
      break;
    case Resource::none: break;
    // The worker's node's CPU: the one its shard applies on when shards are colocated.
    case Resource::host_cpu: h.res[0] = colocated ? server_cpu : host_cpu; break;
  }
  return h;
}

const char* track_of(int res) {
  static const char* names[kNumRes] = {"GPU",           "PCIe d2h",      "PCIe h2d",
                                       "GPU-GPU",       "server CPU",    "worker NIC tx",
                                       "worker NIC rx", "server NIC tx", "server NIC rx", "host CPU"};
  return res >= 0 && res < kNumRes ? names[res] : "sync";
}

}  // namespace

AnalyticCost analytic_cost(const SyncPlan& plan, const Task& t, const NodeLoad& l) {
  const Rates& r = plan.rates;
  if (t.resource == Resource::server_cpu) {
    // Slices of one tensor sit on distinct shards and are applied in parallel; the
    // representative server CPU is held for the mean shard's share.
    double busiest = 0, total = 0;
    for (const Slice& s : plan.tensors.at(std::size_t(t.tensor)).slices) {
      busiest = std::max(busiest, s.bytes);
      total += s.bytes;
    }
    const double per_byte = plan.workers / r.server_apply_bytes_per_s;
    return {t.duration_s + busiest * per_byte, t.duration_s + total / plan.num_shards() * per_byte};
  }
  if (t.resource != Resource::network) {
    const double d = resource_seconds(r, t);
    return {d, d};
  }
  // The busiest node's bytes, or a collective's bytes in series on its critical path.
  const double busiest = std::max({l.tx_bytes_max, l.rx_bytes_max, l.path_bytes});
  if (busiest <= 0) return {0, 0};  // everything stayed on the host
  const double fixed = r.latency_s * l.sequential_steps;
  const double mean = std::max(l.tx_bytes_mean, l.rx_bytes_mean);
  // Latency and per-message software cost delay the task but use no bandwidth.
  const double rate = plan.nic_bytes_per_s();
  const double launch = t.pattern == FlowPattern::collective ? r.collective_launch_s : 0.0;
  return {busiest / rate + fixed + l.messages_max * r.per_message_s + launch, mean / rate};
}

namespace {

// Template tasks with what list scheduling needs: duration, hold, resources, dependents.
struct Prepared {
  std::vector<double> dur, hold;
  std::vector<Held> held;
  TemplateDependents dependents;
  std::vector<NodeLoad> load;
  NodeBytes per_node;  // each node's bytes over the network tasks, as node_load places them
};

Prepared prepare(const SyncPlan& plan) {
  const std::size_t n = plan.tasks.size();
  Prepared p{std::vector<double>(n), std::vector<double>(n), std::vector<Held>(n), TemplateDependents(plan),
             std::vector<NodeLoad>(n), NodeBytes(plan.workers)};
  for (std::size_t i = 0; i < n; ++i) {
    const Task& t = plan.tasks[i];
    if (t.resource == Resource::network) p.load[i] = node_load(plan, t, &p.per_node);
    const AnalyticCost c = analytic_cost(plan, t, p.load[i]);
    p.dur[i] = c.duration_s;
    p.hold[i] = c.hold_s;
    p.held[i] = resources(plan, t, p.load[i]);
  }
  work::count(n);
  return p;
}

// The representative worker is the slowest one not dropped (BSP waits for it); a shard
// applies the updates of the workers not dropped.
struct IterationInput {
  double slowdown = 1;
  double active_share = 1;  // workers aggregated / workers
};

std::vector<IterationInput> iteration_inputs(const SyncPlan& plan, int k) {
  std::vector<IterationInput> in(std::size_t(k), IterationInput{});
  for (int t = 0; t < k; ++t) {
    const auto& slow = plan.stragglers.slowdown[std::size_t(t)];
    const auto& dropped = plan.stragglers.dropped[std::size_t(t)];
    double worst = 0;
    for (std::size_t w = 0; w < slow.size(); ++w)
      if (!dropped[w]) worst = std::max(worst, slow[w]);
    in[std::size_t(t)].slowdown = worst > 0 ? worst : 1.0;
    in[std::size_t(t)].active_share = double(plan.stragglers.active(t)) / std::max(1, plan.workers);
  }
  return in;
}

// Instance (t, i) of a template task under iteration t's inputs: (duration, hold).
std::pair<double, double> instance_cost(const SyncPlan& plan, const Prepared& p, std::size_t i,
                                        const IterationInput& in) {
  const Task& task = plan.tasks[i];
  if (task.resource == Resource::gpu) return {p.dur[i] * in.slowdown, p.hold[i] * in.slowdown};
  if (task.resource == Resource::server_cpu && in.active_share != 1.0) {  // per-byte part: the updates
    const double fixed = task.duration_s;
    return {fixed + (p.dur[i] - fixed) * in.active_share, fixed + (p.hold[i] - fixed) * in.active_share};
  }
  return {p.dur[i], p.hold[i]};
}

struct Schedule {
  Schedule(const SyncPlan& plan, int k)
      : n(plan.tasks.size()),
        start(n * std::size_t(k), 0.0),
        finish(n * std::size_t(k), 0.0),
        path(plan, n * std::size_t(k), k) {}
  std::size_t n;
  std::vector<double> start, finish;
  // Per instance, what held it back (model/run/breakdown.hpp): written as it is scheduled.
  CriticalPath path;
  std::size_t id(int t, std::size_t i) const { return std::size_t(t) * n + i; }
};

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

// An instance ready to be scheduled: ready time, then iteration and task (one key:
// iteration in the high half), the list schedule's order.
struct ReadyItem {
  double ready_s;
  std::uint64_t key;
  ReadyItem(double r, int t, std::uint32_t i) : ready_s(r), key(std::uint64_t(t) << 32 | i) {}
  bool operator>(const ReadyItem& o) const { return ready_s != o.ready_s ? ready_s > o.ready_s : key > o.key; }
};
using ReadyHeap = std::priority_queue<ReadyItem, std::vector<ReadyItem>, std::greater<ReadyItem>>;

// List scheduling: an instance starts when its deps are done and its resources are free;
// ties go to the instance that became ready first. `inter`, where given: kernels and
// GPU-to-GPU transfers progress at the plan's slowed rates where the other kind is in
// flight (Interference).
Schedule list_schedule(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs,
                       const Interference* inter = nullptr) {
  const int k = int(inputs.size());
  Schedule s(plan, k);
  std::vector<int> pending(s.start.size());
  std::vector<ReadyItem> storage;
  storage.reserve(s.start.size());
  ReadyHeap heap(std::greater<ReadyItem>(), std::move(storage));
  for (int t = 0; t < k; ++t)
    for (std::size_t i = 0; i < s.n; ++i) {
      int need = 0;
      for (const Dep& d : plan.tasks[i].deps)
        if (t - int(d.lag) >= 0) ++need;
      pending[s.id(t, i)] = need;
      if (need == 0) heap.emplace(0.0, t, std::uint32_t(i));
    }
  std::array<double, kNumRes> free_at{};
  std::array<std::int64_t, kNumRes> holder;
  holder.fill(InstanceTiming::kNone);
  std::uint64_t listed = 0;
  while (!heap.empty()) {
    ++listed;
    const double r = heap.top().ready_s;
    const int t = int(heap.top().key >> 32);
    const std::uint32_t i = std::uint32_t(heap.top().key);
    heap.pop();
    const std::size_t me = s.id(t, i);
    InstanceTiming& x = s.path.at(me);
    auto [dur, hold] = instance_cost(plan, p, i, inputs[std::size_t(t)]);
    double start = r;
    for (int res : p.held[i].res)
      if (res >= 0 && free_at[std::size_t(res)] > start) {
        start = free_at[std::size_t(res)];
        x.queued_behind = holder[std::size_t(res)];
      }
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
    for (int res : p.held[i].res)
      if (res >= 0) {
        free_at[std::size_t(res)] = start + hold;
        holder[std::size_t(res)] = std::int64_t(me);
      }
    s.start[me] = x.start_s = start;
    s.finish[me] = start + dur;
    x.task = std::uint32_t(i);
    const bool gpu = plan.tasks[i].resource == Resource::gpu;
    x.slowdown = gpu ? float(inputs[std::size_t(t)].slowdown) : 1.0f;
    s.path.finished(me, t, start + dur);
    if (gpu) s.path.gpu_busy(me, start, start + dur);
    for (const Dep& d : p.dependents[i]) {
      const int u = t + int(d.lag);
      if (u >= k) continue;
      const std::size_t j = s.id(u, d.task);
      InstanceTiming& y = s.path.at(j);
      if (start + dur >= y.ready_s) {
        y.ready_s = start + dur;
        y.released_by = std::int64_t(me);
      }
      if (--pending[j] == 0) heap.emplace(y.ready_s, u, d.task);
    }
    listed += p.dependents[i].size();
  }
  work::count(listed);
  return s;
}

// When a schedule has each worker's communication kernels and GPU kernels in flight.
Interference in_flight(const SyncPlan& plan, const Schedule& s, int k) {
  const Rates& r = plan.rates;
  Interference in;
  for (int t = 0; t < k; ++t)
    for (std::size_t i = 0; i < s.n; ++i) {
      const Task& task = plan.tasks[i];
      const double a = s.start[s.id(t, i)], b = s.finish[s.id(t, i)];
      if (task.resource == Resource::gpu) in.kernels.add(a, b);
      // A collective's kernel runs after its launch (coordination and the launch itself).
      const double launch = task.pattern == FlowPattern::collective ? r.collective_launch_s : 0.0;
      if (runs_comm_kernel(task)) in.comm.add(std::min(b, a + launch), b);
    }
  in.comm.merge();
  in.kernels.merge();
  return in;
}

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
    std::vector<ReadyItem> storage;
    storage.reserve(s_.start.size());
    ready_ = ReadyHeap(std::greater<ReadyItem>(), std::move(storage));
    for (int t = 0; t < k_; ++t)
      for (std::size_t i = 0; i < s_.n; ++i) {
        int need = 0;
        for (const Dep& d : plan_.tasks[i].deps)
          if (t - int(d.lag) >= 0) ++need;
        pending_[s_.id(t, i)] = need;
        if (need == 0) ready_.emplace(0.0, t, std::uint32_t(i));
      }
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

Schedule interfered_schedule(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs) {
  return InterferedScheduler(plan, p, inputs).run();
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

bool interferes(const SyncPlan& plan) {
  return plan.rates.interferes() && std::any_of(plan.tasks.begin(), plan.tasks.end(), runs_comm_kernel);
}

std::vector<int> identity_sources(int k) {
  std::vector<int> v;
  for (int t = 0; t < k; ++t) v.push_back(t);
  return v;
}

void add_timeline(const SyncPlan& plan, const Prepared& p, const Schedule& s, int k, Result& res) {
  for (int t = 0; t < k; ++t)
    for (std::size_t i = 0; i < s.n; ++i) {
      const Task& task = plan.tasks[i];
      const double dur = s.finish[s.id(t, i)] - s.start[s.id(t, i)];
      if (dur <= 0) continue;
      const std::string layer = task.layer >= 0 ? plan.layers[std::size_t(task.layer)].name : "";
      for (int r : p.held[i].res) {
        if (r < 0) continue;
        // The representative is worker 0; a shard's work and the server's NICs belong to no
        // worker (a worker's own work on its node's CPU does).
        const int worker = task.scope != Scope::worker || r == server_tx || r == server_rx ? -1 : 0;
        res.timeline.push_back(TimelineEvent{std::string("representative ") + track_of(r), task.label + " " + layer,
                                             to_string(task.step), s.start[s.id(t, i)], dur, t, task.layer, worker});
        if (task.bytes > 0) res.timeline.back().bytes = task.bytes;
        else if (task.tensor >= 0) res.timeline.back().bytes = plan.tensors[std::size_t(task.tensor)].bytes;
      }
    }
}

}  // namespace

double interference_fixed_point_gap(const SyncPlan& plan) {
  const Prepared p = prepare(plan);
  const std::vector<IterationInput> inputs = iteration_inputs(plan, std::max(1, plan.iterations));
  return fluid_pass_gap(plan, p, inputs, interfered_schedule(plan, p, inputs));
}

std::string analytic_queue_warning(std::size_t flagged, std::size_t points) {
  return "the analytic engine serves transfers in turn where SimGrid shares the link among them, and at " +
         std::to_string(flagged) + " of " + std::to_string(points) +
         " points one or more wait their turn on average: these may differ from SimGrid by more than 3% "
         "(bench/results/analytic_agreement.md); check them with --engine simgrid";
}

Result AnalyticEngine::run(const SyncPlan& plan, const RunOptions& opt) const {
  const int k = std::max(1, plan.iterations);
  // Under SSP, workers slowed differently drift apart: one representative cannot stand
  // for them.
  if (plan.consistency == Consistency::ssp && !plan.undisturbed())
    throw InputError("the analytic engine cannot run stragglers under SSP (workers drift apart; one "
                     "representative worker cannot stand for them): use --engine simgrid");
  const Prepared p = prepare(plan);
  const std::vector<IterationInput> inputs = iteration_inputs(plan, k);
  const bool interfered = interferes(plan);
  const Schedule s = interfered ? interfered_schedule(plan, p, inputs) : list_schedule(plan, p, inputs);

  std::vector<double> ends;
  for (int t = 0; t < k; ++t) {
    double end = 0;
    for (std::size_t i = 0; i < s.n; ++i) end = std::max(end, s.finish[s.id(t, i)]);
    ends.push_back(end);
  }
  Result res = begin_result(plan, name(), std::move(ends));
  // Busy: GPU time per iteration; averaged over the iterations when stragglers or
  // interference vary it.
  const int busy_iterations = plan.undisturbed() && !interfered ? 1 : k;
  for (int t = 0; t < busy_iterations; ++t)
    for (std::size_t i = 0; i < s.n; ++i)
      if (p.held[i].res[0] == gpu)
        res.gpu_busy_s += interfered ? s.finish[s.id(t, i)] - s.start[s.id(t, i)]  // slowed where overlapped
                                     : instance_cost(plan, p, i, inputs[std::size_t(t)]).first;
  res.gpu_busy_s /= busy_iterations;
  res.gpu_stall_s = std::max(0.0, res.iteration_s - res.gpu_busy_s);

  const int nodes = plan.cluster.total_nodes();
  for (std::size_t i = 0; i < s.n; ++i) {
    if (plan.tasks[i].resource != Resource::network) continue;
    const NodeLoad& l = p.load[i];
    res.sent_bytes_mean += l.total_bytes / nodes;
    res.received_bytes_mean += l.total_bytes / nodes;
  }
  res.sent_bytes_max = p.per_node.tx_max();
  res.received_bytes_max = p.per_node.rx_max();
  fill_layer_rows(plan, res, [&](std::size_t i) {
    return std::make_pair(s.start[s.id(k - 1, i)], s.finish[s.id(k - 1, i)]);
  });
  fill_breakdown(plan, s.path, identity_sources(k), res);
  // Little's law over the last iteration: the mean number of non-GPU instances waiting
  // for their resource (analytic_may_differ).
  double waited = 0;
  for (std::size_t i = 0; i < s.n; ++i) {
    if (plan.tasks[i].resource == Resource::gpu) continue;
    const InstanceTiming& x = s.path.at(s.id(k - 1, i));
    waited += x.start_s - x.ready_s;
  }
  res.queued_transfers = res.iteration_s > 0 ? waited / res.iteration_s : 0;
  if (opt.timeline) add_timeline(plan, p, s, k, res);
  return res;
}

}  // namespace possim
