// The SimGrid engine as a loadable module (libpossim_simgrid.so): the CLI opens it only when
// a command runs this engine, so no other command maps SimGrid and its thirty libraries.
// The module's references to possim's model resolve to the executable's own (it exports
// them), so there is one registry, one set of types.
#include "model/run/shared_types.hpp"
#include "sim/simgrid_info.hpp"

extern "C" possim::Engine* possim_simgrid_make(const possim::EngineRequest* request) {
  return possim::sim::make_simgrid_engine(*request).release();
}

extern "C" std::uint64_t possim_simgrid_types() { return possim::shared_types_fingerprint(); }
