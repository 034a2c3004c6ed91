// Checks on a plan before an engine runs it, for what no single input field shows but
// their combination does: a layer's FLOPs over a tiny profile peak, a bandwidth that is
// not a number, a cluster too large to simulate instance by instance. Each failure is
// one InputError naming the limit; the sweep adds which point it was.
#pragma once
#include <cstdint>

#include "model/workload/network.hpp"
#include "model/plan/sync_plan.hpp"

namespace possim {

// Rates finite and positive, and every task's time (its seconds, or its bytes at the
// rate that moves them, for the busiest node) finite and at most limits::kMaxTaskSeconds,
// so that no engine computes with inf or NaN and results never hold them.
void check_plan(const SyncPlan& plan);

// What an engine that simulates every task instance and flow (SimGrid) would hold:
// instances (tasks x workers or slices x iterations) at most limits::kMaxTaskInstances,
// network flows per iteration at most limits::kMaxFlowsPerIteration. Checked arithmetic
// (saturating). Returned: the simulation's budget is derived from them.
struct SimulationSize {
  std::uint64_t instances = 0;            // over all iterations
  std::uint64_t flows_per_iteration = 0;
  std::uint64_t iterations = 1;
  std::uint64_t events() const;           // instances + flows over all iterations, saturating
};
// `group_workers` (0: the plan's): the workers a collective spans when the plan simulates
// fewer of them (a plan folded onto worker 0 still runs each collective's rounds over all).
SimulationSize check_simulation_size(const SyncPlan& plan, bool flow_per_kv_pair, int group_workers = 0);

}  // namespace possim
