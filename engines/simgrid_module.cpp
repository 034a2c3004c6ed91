#include "engines/simgrid_module.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

#include "model/run/module_host.hpp"
#include "model/run/shared_types.hpp"

namespace possim {

namespace {

using MakeFn = Engine* (*)(const EngineRequest*);
using TypesFn = std::uint64_t (*)();

MakeFn load() {
  static std::once_flag once;
  static MakeFn make = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    const char* env = std::getenv("POSSIM_SIMGRID_MODULE");
    const bool from_env = env && *env;
    std::string path = from_env ? env : POSSIM_SIMGRID_MODULE_PATH;
    // A build tree moved since it was built: the module where the build puts it, beside
    // this program's folder (build/cli/possim, build/sim/libpossim_simgrid.so).
    if (!from_env && ::access(path.c_str(), F_OK) != 0) {
      std::error_code ec;
      const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
      const auto beside = self.parent_path().parent_path() / "sim" / std::filesystem::path(path).filename();
      if (!ec && ::access(beside.c_str(), F_OK) == 0) path = beside.string();
    }
    // RTLD_LOCAL: SimGrid's symbols stay the module's; the module's own references to
    // possim resolve to this program's exported ones.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = ::dlerror();
      failure = "cannot load the SimGrid engine from " + path + ": " + (why ? why : "unknown reason") +
                " (build it with cmake --build build, or set POSSIM_SIMGRID_MODULE)";
      return;
    }
    const auto types = reinterpret_cast<TypesFn>(::dlsym(handle, "possim_simgrid_types"));
    const auto maker = reinterpret_cast<MakeFn>(::dlsym(handle, "possim_simgrid_make"));
    if (!maker || !types) {
      failure = path + " has no possim_simgrid_make or possim_simgrid_types: not this possim's SimGrid module";
    } else if (types() != shared_types_fingerprint()) {
      // Built from other sources: it would read this program's plans and results through
      // other layouts.
      failure = path + " was built from other sources than this program (the types they share differ): " +
                "rebuild both with cmake --build build, or set POSSIM_SIMGRID_MODULE to the module built with it";
    } else {
      make = maker;
    }
    if (!make) ::dlclose(handle);
  });
  if (!make) throw std::runtime_error(failure);
  return make;
}

}  // namespace

std::unique_ptr<Engine> make_simgrid_from_module(const EngineRequest& q) {
  before_opening_module("the SimGrid engine");  // the static possim restarts as possim-modules
  return std::unique_ptr<Engine>(load()(&q));
}

}  // namespace possim
