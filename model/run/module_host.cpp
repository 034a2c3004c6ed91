#include "model/run/module_host.hpp"

namespace possim {

namespace {
// Set by a static initialiser of the statically linked executable, before main: constant
// initialised, so no initialisation order can read it unset after it was set.
ModuleFallback fallback = nullptr;
}  // namespace

void set_module_fallback(ModuleFallback f) { fallback = f; }

void before_opening_module(const char* what) {
  if (fallback) fallback(what);
}

}  // namespace possim
