// The analytic engine: evaluates a SyncPlan in microseconds by list scheduling one
// representative worker (all workers run the same SPMD template in lockstep; with
// stragglers under BSP, the slowest worker not dropped, whom the barrier waits for).
//
// Resources, each serialized (a task starts when its deps are done and its resources
// are free; ties go to the task that became ready first): the GPU, PCIe in each
// direction, the intra-node GPU link, the server CPU, and the NIC of a worker node and
// of a server node in each direction (the same NIC when shards are colocated).
// A network task lasts
//   max(busiest tx bytes, busiest rx bytes) / (line rate x goodput)
//   + latency x sequential steps + the busiest worker's messages x per-message cost
// ("busiest": the most loaded node for that task, node_load.hpp), but holds the
// representative NIC only while the MEAN per-node load crosses it (latency and
// per-message costs delay a task but leave the wire free for others): one layer's KV pairs sit on a
// few shards, the next layer's on others, so their incasts proceed side by side; what
// a task takes from the others is the bandwidth an average node spends on it. When
// every node carries the same load (ring, SFB, evenly hashed PS) the two are equal.
// Server applies are treated alike: a tensor's slices are applied on their shards in
// parallel, for the busiest slice's time, holding the server CPU for the mean share.
#pragma once

#include "model/run/engine.hpp"
#include "model/input/scenario.hpp"
#include "model/plan/node_load.hpp"

namespace possim {

class AnalyticEngine : public Engine {
 public:
  const char* name() const override { return "analytic"; }
  Result run(const SyncPlan& plan, const RunOptions& opt) const override;
};

// Seconds one instance of task t lasts under the analytic model, and how long it holds
// its resources (shorter for unbalanced network tasks); `load` is node_load(plan, t).
struct AnalyticCost {
  double duration_s = 0;
  double hold_s = 0;
};
AnalyticCost analytic_cost(const SyncPlan& plan, const Task& t, const NodeLoad& load);

// Where the engine and SimGrid part ways: it serves each link, bus and CPU first come, first
// served, in the plan's order, where SimGrid shares it among everything in flight. The two
// agree while little waits; once on average one transfer or more waits for its resource
// (Result::queued_transfers), the order matters: 106 of the 107 shipped paper and today
// points where they differ by more than 3% are such points, and 148 of the 423 where they
// agree (bench/results/analytic_agreement.md).
constexpr double kQueuedTransfersLimit = 1.0;
inline bool analytic_may_differ(const Result& r) {
  return r.engine == "analytic" && r.queued_transfers >= kQueuedTransfersLimit;
}
// The one line `possim run` and `possim plan` print when `flagged` of `points` may differ.
std::string analytic_queue_warning(std::size_t flagged, std::size_t points);

// Compute/communication interference is scheduled in one pass, in time order, each kernel
// and GPU-to-GPU transfer at the rate what else is in flight allows at each moment. Its
// schedule is the fixed point of fluid passes (list schedule again, each instance slowed
// where the schedule had the other kind in flight): the fraction of the schedule's length
// by which one more such pass moves an instance, for tests (0 up to rounding).
double interference_fixed_point_gap(const SyncPlan& plan);

// What the engine approximates for this scenario ("" when nothing): with stragglers under
// BSP, one worker stands for all.
std::string analytic_caveat(const Scenario& s);
// Adds the engine to the registry (model/run/engine_registry.hpp).
void register_analytic_engine();

}  // namespace possim
