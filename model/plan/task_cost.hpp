// Seconds a task occupies its resource, where that follows from its amount and the plan's
// rates alone (no contention): GPU, PCIe and intra-node tasks.
#pragma once

#include "model/plan/sync_plan.hpp"

namespace possim {

// From the resource table (model/plan/resource.hpp): seconds as written; bytes at the
// resource's rate plus its latency (nothing for no bytes); 0 for flows and updates, whose
// time depends on more than the task.
double resource_seconds(const Rates& r, const Task& t);

// A collective's launch and coordination before its kernel and rounds run (Horovod's
// negotiation, NCCL's launch); other tasks have none.
inline double launch_seconds(const Rates& r, const Task& t) {
  return t.pattern == FlowPattern::collective ? r.collective_launch_s : 0.0;
}

}  // namespace possim
