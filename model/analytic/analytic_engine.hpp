// The analytic engine: evaluates a SyncPlan in microseconds by list scheduling one
// representative worker (all workers run the same SPMD template in lockstep).
//
// Resources, each serialized (a task starts when its deps are done and its resources
// are free; ties go to the task that became ready first): the GPU, PCIe in each
// direction, the intra-node GPU link, the server CPU, and the NIC of a worker node and
// of a server node in each direction (the same NIC when shards are colocated). A
// network task holds its sender's tx and its receiver's rx for
//   max(busiest tx bytes, busiest rx bytes) / (line rate x goodput)
//   + latency x sequential steps + messages at the busiest endpoint x per-message cost,
// where "busiest" is the most loaded node for that task (node_load.hpp). No other
// contention is modelled: flows of one task do not slow each other beyond that max.
#pragma once

#include "model/engine.hpp"
#include "model/node_load.hpp"

namespace possim {

class AnalyticEngine : public Engine {
 public:
  const char* name() const override { return "analytic"; }
  Result run(const SyncPlan& plan, const Network& net, const RunOptions& opt) const override;
};

// Seconds one instance of task t occupies its resources under the analytic model;
// `load` is node_load(plan, t) for network tasks.
double analytic_duration(const SyncPlan& plan, const Task& t, const NodeLoad& load);

}  // namespace possim
