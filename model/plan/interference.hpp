// Compute/communication interference on a worker's GPUs (Rates::interference_*): which
// tasks run communication kernels on them. A collective's rounds run NCCL-style
// reduce-copy kernels on the GPUs' SMs, and the GPU-to-GPU path's transfers are driven by
// kernels on the same GPUs; copies between GPU and host use the copy engines and do not
// interfere (measured: reports/gpu/README.md, a pinned host-to-device copy beside a GEMM
// neither slows nor is slowed).
#pragma once
#include "model/plan/sync_plan.hpp"

namespace possim {

// While an instance of `t` is in flight, its worker's GPU kernels are slowed.
inline bool runs_comm_kernel(const Task& t) {
  return t.resource == Resource::intra_node ||
         (t.resource == Resource::network && t.pattern == FlowPattern::collective);
}

// Whether its own progress is slowed while a kernel runs on its worker's GPUs: the
// GPU-to-GPU path's; a collective's inter-node rounds are bounded by the NIC, whose rate
// (50 GB/s at 400 Gbit/s) stays below the reduce kernel's beside a GEMM (190-485 GB/s
// measured on 8-32 CTAs of an H200).
inline bool slowed_by_kernels(const Task& t) { return t.resource == Resource::intra_node; }

// An engine counts what is in flight of each kind per worker; the other kind's speed
// changes only when the count moves between zero and non-zero. Adds `delta` to `count`
// and says whether it did.
inline bool crossed_zero(int& count, int delta) {
  const bool before = count != 0;
  count += delta;
  return before != (count != 0);
}

}  // namespace possim
