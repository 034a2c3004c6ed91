// The SimGrid engine loaded on demand: the module built from sim/ (libpossim_simgrid.so),
// opened once, the first time a command makes the engine.
#pragma once

#include <memory>

#include "model/run/engine_registry.hpp"

namespace possim {

// Opens the module (POSSIM_SIMGRID_MODULE in the environment, else the one built beside
// this program) and makes the engine. Throws std::runtime_error naming the module and the
// loader's reason when it cannot be opened.
std::unique_ptr<Engine> make_simgrid_from_module(const EngineRequest& q);

}  // namespace possim
