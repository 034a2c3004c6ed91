// A plan slowed down by a factor k in everything it emulates: GPU and server work k times
// longer, NIC, PCIe, intra-node and apply rates k times slower, latencies and the
// framework's per-iteration overhead k times longer. Amounts (bytes, parameters) and the
// per-message cost are unchanged: the per-message cost is the CPU's own work on a message,
// which a live run does for real and does not emulate.
//
// Time dilation (Gupta et al., "DieCast", NSDI 2008): a live run that hosts N node
// processes on C < N cores gives each node about C/N of a core, so every message's CPU
// work takes about N/C times longer than on a node of its own. Run the plan dilated by
// k = N/C and divide the measured times by k: the emulated work and the links take their
// real time, and each node's CPU has, per unit of undilated time, the core it would have
// on a real cluster. The simulator needs no change: a simulation of the dilated plan with
// the per-message cost also multiplied by k is k times the undilated one (a test holds
// this), so the undilated simulation predicts the dilated run divided by k.
#pragma once
#include "model/plan/sync_plan.hpp"

namespace possim {

// Throws std::invalid_argument unless k is finite and >= 1.
SyncPlan dilate_time(const SyncPlan& plan, double k);

}  // namespace possim
