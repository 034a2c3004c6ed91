// Seconds a task occupies its resource, where that follows from its amount and the plan's
// rates alone (no contention): GPU, PCIe and intra-node tasks.
#pragma once

#include "model/plan/sync_plan.hpp"

namespace possim {

// GPU: its duration; PCIe: latency + bytes at the copy rate (nothing for no bytes);
// intra-node: bytes at the GPU-to-GPU rate; 0 for other resources.
double resource_seconds(const Rates& r, const Task& t);

}  // namespace possim
