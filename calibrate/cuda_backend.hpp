// The GPU backend: cuDNN 9 (convolutions with the algorithm cuDNN's find picks, BatchNorm,
// pooling, activations, LRN, softmax, dropout) and cuBLAS (FC GEMMs, the SF rebuild),
// timed with CUDA events. Compiled only when CUDA and cuDNN were found (POSSIM_HAVE_CUDA).
#pragma once
#include <memory>

#include "calibrate/kernel_backend.hpp"

namespace possim::calibrate {

// Throws BackendUnavailable("no CUDA device: use --backend cpu ...") without a device.
std::unique_ptr<KernelBackend> make_cuda_backend(Precision precision);

}  // namespace possim::calibrate
