// The GPU backend: cuDNN 9 (convolutions with the algorithm cuDNN's find picks, BatchNorm,
// pooling, activations, LRN, softmax, dropout) and cuBLAS (FC GEMMs, the SF rebuild),
// timed with CUDA events. Built only when CUDA and cuDNN were found, and then as a plugin
// (libpossim_cuda_backend.so, next to the possim binary) that make_backend("gpu") loads
// with dlopen: possim itself links no CUDA library, so only --backend gpu pays for them.
#pragma once
#include <memory>
#include <string>

#include "kernels/kernel_backend.hpp"

// The plugin's one entry point, looked up by this name with dlsym. Returns a new backend
// (the caller owns it; the plugin stays loaded for the life of the process). Throws
// BackendUnavailable("no CUDA device: use --backend cpu ...") without a device (or without
// device index `device`), InputError for a precision the device cannot do,
// std::runtime_error when CUDA fails.
// v3: KernelBackend gained time_device_copy (a v2 plugin's vtable lacks it).
#define POSSIM_CUDA_BACKEND_FACTORY "possim_make_cuda_backend_v3"
extern "C" possim::calibrate::KernelBackend* possim_make_cuda_backend_v3(
    possim::calibrate::Precision precision, int device);

// CUDA devices the plugin sees (0 without a driver or a device), by this name with dlsym.
#define POSSIM_CUDA_DEVICE_COUNT "possim_cuda_device_count"
extern "C" int possim_cuda_device_count();

namespace possim::calibrate {

// Loads the plugin at `path` and makes a backend with its factory; make_backend("gpu")
// calls it with the plugin it finds. Throws BackendUnavailable naming dlopen's (or dlsym's)
// error when the plugin cannot be loaded, else what the factory throws.
std::unique_ptr<KernelBackend> load_cuda_backend_plugin(const std::string& path,
                                                        Precision precision, int device = 0);

}  // namespace possim::calibrate
