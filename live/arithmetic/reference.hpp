// Single-process references for the live engine's arithmetic: what a data-parallel run
// over `workers` workers of `batch` samples each must end with.
#pragma once
#include "live/arithmetic/cpu_network.hpp"
#include "live/arithmetic/settings.hpp"
#include "model/plan/sync_plan.hpp"

namespace possim::live::arith {

// Plain SGD, one process, on the global batch of each iteration (every worker's samples).
Params sgd_reference(const Settings& s, int workers, int batch, int iterations, std::vector<double>* loss = nullptr);

// 1-bit SGD as the onebit plan runs it, in one process: each worker's gradient quantized
// with its own residual, slice by slice of the plan's tensors; each slice's mean of the
// dequantized gradients quantized again with the shard's residual; every worker applies
// that. The same operations in the same order as the live run.
Params onebit_reference(const SyncPlan& plan, const Settings& s);

}  // namespace possim::live::arith
