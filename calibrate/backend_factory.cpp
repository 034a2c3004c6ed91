#include "calibrate/cpu_backend.hpp"
#include "calibrate/kernel_backend.hpp"
#include "model/error.hpp"

#ifdef POSSIM_HAVE_CUDA
#include "calibrate/cuda_backend.hpp"
#endif

namespace possim::calibrate {

bool gpu_backend_built() {
#ifdef POSSIM_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

std::unique_ptr<KernelBackend> make_backend(const std::string& name, Precision precision,
                                            int threads) {
  if (name == "cpu") return make_cpu_backend(precision, threads);
  if (name == "gpu") {
#ifdef POSSIM_HAVE_CUDA
    return make_cuda_backend(precision);
#else
    throw BackendUnavailable(
        "GPU backend not built: CUDA/cuDNN not found at configure time (use --backend cpu, or "
        "install the CUDA Toolkit and cuDNN and re-run cmake)");
#endif
  }
  throw InputError("--backend", "unknown backend '" + name + "'", "cpu or gpu");
}

}  // namespace possim::calibrate
