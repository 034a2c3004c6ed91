#include <dlfcn.h>

#include <filesystem>
#include <string>
#include <vector>

#include "kernels/cpu_backend.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/kernel_backend.hpp"
#include "model/input/error.hpp"
#include "model/run/module_host.hpp"

namespace possim::calibrate {

#ifdef POSSIM_CUDA_PLUGIN_NAME
namespace {

// Where the GPU backend plugin may be: next to the running binary (the possim the build
// wrote, however it was started), else where the build wrote it (for the test binary).
// The first that exists; when none does, the last, for dlopen to say so.
std::string find_cuda_plugin() {
  std::vector<std::string> candidates;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back((exe.parent_path() / POSSIM_CUDA_PLUGIN_NAME).string());
  candidates.push_back(POSSIM_CUDA_PLUGIN_PATH);
  for (const auto& c : candidates)
    if (std::filesystem::exists(c, ec)) return c;
  return candidates.back();
}

}  // namespace
#endif

std::unique_ptr<KernelBackend> load_cuda_backend_plugin(const std::string& path,
                                                        Precision precision, int device) {
  before_opening_module("the GPU kernel backend");  // the static possim restarts as possim-modules
  // Never closed: the backends the plugin makes run its code.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw BackendUnavailable(std::string("GPU backend plugin cannot be loaded: ") +
                             (why ? why : path.c_str()) +
                             " (use --backend cpu, or rebuild possim with CUDA and cuDNN)");
  }
  dlerror();
  void* sym = dlsym(lib, POSSIM_CUDA_BACKEND_FACTORY);
  if (!sym) {
    const char* why = dlerror();
    throw BackendUnavailable("GPU backend plugin " + path + " has no " +
                             POSSIM_CUDA_BACKEND_FACTORY + ": " + (why ? why : "null symbol") +
                             " (use --backend cpu, or rebuild possim)");
  }
  const auto make = reinterpret_cast<decltype(&possim_make_cuda_backend_v3)>(sym);
  return std::unique_ptr<KernelBackend>(make(precision, device));
}

int gpu_device_count() {
#ifdef POSSIM_CUDA_PLUGIN_NAME
  before_opening_module("the GPU kernel backend");
  void* lib = dlopen(find_cuda_plugin().c_str(), RTLD_NOW | RTLD_LOCAL);  // never closed, as above
  if (!lib) return 0;
  void* sym = dlsym(lib, POSSIM_CUDA_DEVICE_COUNT);
  return sym ? reinterpret_cast<decltype(&possim_cuda_device_count)>(sym)() : 0;
#else
  return 0;
#endif
}

bool gpu_backend_built() {
#ifdef POSSIM_CUDA_PLUGIN_NAME
  return true;
#else
  return false;
#endif
}

std::unique_ptr<KernelBackend> make_backend(const std::string& name, Precision precision,
                                            int threads, int device) {
  if (name == "cpu") return make_cpu_backend(precision, threads);
  if (name == "gpu") {
#ifdef POSSIM_CUDA_PLUGIN_NAME
    return load_cuda_backend_plugin(find_cuda_plugin(), precision, device);
#else
    throw BackendUnavailable(
        "GPU backend not built: CUDA/cuDNN not found at configure time (use --backend cpu, or "
        "install the CUDA Toolkit and cuDNN and re-run cmake)");
#endif
  }
  throw InputError("--backend", "unknown backend '" + name + "'", "cpu or gpu");
}

}  // namespace possim::calibrate
