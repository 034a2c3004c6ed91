// The CPU backend: the kernels of cpu_kernels.hpp timed with steady_clock. It measures the
// machine it runs on, so calibration code paths build, run and are tested without a GPU.
#pragma once
#include <memory>

#include "kernels/kernel_backend.hpp"

namespace possim::calibrate {

// fp32 only (tf32/bf16 requests are refused with InputError); threads: Eigen's GEMM threads.
std::unique_ptr<KernelBackend> make_cpu_backend(Precision precision, int threads);

}  // namespace possim::calibrate
