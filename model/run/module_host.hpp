#pragma once
// Opening a module (dlopen: the SimGrid engine's, the CUDA kernel backend's) needs a
// dynamically linked process. The possim executable is linked statically, so that a
// command answered by the analytic engine maps no shared object; it registers here what
// to do instead (cli/restart_with_modules.cpp: start the command over as possim-modules,
// its dynamically linked twin). A dynamically linked program registers nothing.

namespace possim {

// Never returns normally: restarts the process, or throws why it cannot. `what` names
// the module, for that message.
using ModuleFallback = void (*)(const char* what);

void set_module_fallback(ModuleFallback f);

// Before any dlopen: in a process that cannot open modules, hands over to the fallback
// (which does not return); otherwise does nothing. A command that opens a module midway
// calls it before its first side effect, so that the restarted command does not repeat one.
void before_opening_module(const char* what);

}  // namespace possim
