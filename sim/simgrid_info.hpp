// What the engine registry knows of the SimGrid engine without loading SimGrid: its name,
// summary and capabilities. The CLI registers it with a maker that loads the engine's
// module on first use (engines/simgrid_module.hpp); programs linking sim/ register the
// engine itself (register_simgrid_engine()).
#pragma once

#include <cstdint>
#include <memory>

#include "model/run/engine_registry.hpp"

namespace possim::sim {

// Everything but `make`.
EngineInfo simgrid_engine_info();

// The engine for a command's request (SimGridOptions from --reduce, --all-iterations, the
// network solver). Defined with the engine (simgrid_registration.cpp).
std::unique_ptr<Engine> make_simgrid_engine(const EngineRequest& q);

}  // namespace possim::sim

// The module's one entry point (sim/module_entry.cpp): a new engine the caller owns.
extern "C" possim::Engine* possim_simgrid_make(const possim::EngineRequest* request);
// The layouts of the types it shares with the program that loads it (model/run/shared_types.hpp),
// as it was compiled: the loader refuses a module whose value is not its own.
extern "C" std::uint64_t possim_simgrid_types();
