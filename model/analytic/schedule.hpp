// The analytic engine's schedule of its one representative worker (analytic_engine.hpp):
// what it takes (the plan's template tasks prepared once, each iteration's inputs) and what
// it gives (each instance's start and finish, and what held it back). fluid_schedule.cpp
// runs the GPU's kernels in turn and shares every other resource among what is in flight
// on it, with compute/communication interference changing speeds as things overlap.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "model/plan/instance_graph.hpp"
#include "model/plan/node_load.hpp"
#include "model/plan/sync_plan.hpp"
#include "model/run/breakdown.hpp"

namespace possim::analytic {

// The representative worker's resources; and where the busiest node carries more than the
// mean node (a shard holding larger slices), that node's NIC and shard CPU, which everyone
// waiting for its slices waits behind.
enum Res {
  gpu, pcie_d2h, pcie_h2d, d2d, server_cpu, worker_tx, worker_rx, server_tx, server_rx, host_cpu,
  hot_tx, hot_rx, hot_cpu, kNumRes
};

// Resources a task uses, as a small list (at most two: a NIC tx and a NIC rx).
struct Held {
  std::array<int, 2> res{{-1, -1}};
};

// A task's work on the busiest node, in seconds at full rate: its NIC's bytes (a network
// task), its shard's apply (a server apply: a fixed part per slice and a per-byte part).
struct HotWork {
  double tx_s = 0, rx_s = 0, cpu_fixed_s = 0, cpu_bytes_s = 0;
};

// Template tasks with what the schedule needs: duration, hold, what follows the bytes
// (AnalyticCost), resources, dependents.
struct Prepared {
  std::vector<double> dur, hold, after;
  std::vector<Held> held;
  TemplateDependents dependents;
  std::vector<NodeLoad> load;
  NodeBytes per_node;  // each node's bytes over the network tasks, as node_load places them
  double node_bytes_mean = 0;  // the mean node's bytes over the network tasks, each way
  int hot_node = -1;   // the busiest node, where it carries more than the mean node; else -1
  std::vector<HotWork> hot;  // per task, where hot_node >= 0
  // Per task: the rounds a collective's work and latency are cut into (1: one piece). A
  // collective runs its rounds in series, each a transfer then a latency; while one waits
  // out a round's latency, the others in flight have its share of the wire. Empty when
  // no task is cut.
  std::vector<std::uint8_t> rounds;
};

// At most this many rounds are kept apart: bench/results/analytic_agreement.md measured 4,
// 8, 16 and 62 (a ring's every round on 32 nodes) and 8 on agrees as well as every round.
constexpr int kMaxCollectiveRounds = 8;

Prepared prepare(const SyncPlan& plan);

// The representative worker is the slowest one not dropped (BSP waits for it); a shard
// applies the updates of the workers not dropped.
struct IterationInput {
  double slowdown = 1;
  double active_share = 1;  // workers aggregated / workers
};

std::vector<IterationInput> iteration_inputs(const SyncPlan& plan, int k);

// Instance (t, i) of a template task under iteration t's inputs: (duration, hold).
inline std::pair<double, double> instance_cost(const SyncPlan& plan, const Prepared& p, std::size_t i,
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

// An instance ready to be scheduled: ready time, then iteration and task (one key:
// iteration in the high half), the order instances are taken in.
struct ReadyItem {
  double ready_s;
  std::uint64_t key;
  ReadyItem(double r, int t, std::uint32_t i) : ready_s(r), key(std::uint64_t(t) << 32 | i) {}
  bool operator>(const ReadyItem& o) const { return ready_s != o.ready_s ? ready_s > o.ready_s : key > o.key; }
};
using ReadyHeap = std::priority_queue<ReadyItem, std::vector<ReadyItem>, std::greater<ReadyItem>>;

// What the schedule keeps while it runs: the schedule being written, each instance's
// dependencies still to come, and the instances ready (in time order).
class ScheduleRun {
 public:
  // Every instance's dependencies within the run (those before iteration 0 are met); the
  // instances that wait for nothing are ready at 0.
  ScheduleRun(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs);

  const SyncPlan& plan;
  const Prepared& p;
  const std::vector<IterationInput>& inputs;
  const int k;
  Schedule s;
  ReadyHeap ready;

  // Instance (t, i) ran from start to end: its timing, and its dependents' readiness.
  void ran(int t, std::uint32_t i, double start, double end);
  // The schedule, its work counted (model/plan/work_count.hpp).
  Schedule finish();

 private:
  std::vector<int> pending_;
  std::uint64_t listed_ = 0;
};

// The schedule (fluid_schedule.cpp).
Schedule fluid_schedule(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs);

// How far one fluid pass over a schedule's own overlaps moves its instances, as a fraction
// of its length: 0 for the fixed point.
double fluid_pass_gap(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs,
                      const Schedule& s);

}  // namespace possim::analytic
