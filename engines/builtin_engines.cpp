#include "engines/builtin_engines.hpp"

#include <mutex>

#include "live/live_engine.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "sim/simgrid_engine.hpp"

namespace possim {

void register_builtin_engines() {
  static std::once_flag once;
  std::call_once(once, [] {
    sim::register_simgrid_engine();
    register_analytic_engine();
    live::register_live_engine();
  });
}

}  // namespace possim
