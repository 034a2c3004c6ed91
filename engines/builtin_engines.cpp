#include "engines/builtin_engines.hpp"

#include <mutex>

#include "engines/simgrid_module.hpp"
#include "live/live_engine.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "sim/simgrid_info.hpp"

namespace possim {

void register_builtin_engines() {
  static std::once_flag once;
  std::call_once(once, [] {
    EngineInfo simgrid = sim::simgrid_engine_info();
    simgrid.make = make_simgrid_from_module;  // SimGrid is mapped only by a process that runs it
    register_engine(std::move(simgrid));
    register_analytic_engine();
    live::register_live_engine();
  });
}

}  // namespace possim
