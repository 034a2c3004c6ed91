// A plan's network scaled down by a factor k: every byte a network task moves and the NIC
// rate are divided by k. Transfer times are unchanged (bytes/k over rate/k); latencies,
// per-message costs, GPU, PCIe and server work are not network amounts and stay as they
// are. Max-min sharing is invariant under the same scaling of every rate and amount, so a
// simulation of the scaled plan predicts the iteration of the full one (a test holds
// this). The live engine runs a scaled plan where this machine cannot carry the
// scenario's real rate, and the simulator is compared with it on the same scaled plan.
#pragma once
#include "model/plan/sync_plan.hpp"

namespace possim {

// Throws std::invalid_argument unless k is finite and >= 1.
SyncPlan scale_network(const SyncPlan& plan, double k);

}  // namespace possim
