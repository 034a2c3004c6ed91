#include "sim/simgrid_info.hpp"

namespace possim::sim {

EngineInfo simgrid_engine_info() {
  EngineInfo e;
  e.name = "simgrid";
  e.summary = "contention, discrete-event";
  e.capabilities.reduces_symmetric = true;
  e.capabilities.per_link_stats = true;
  e.capabilities.runs_sweeps = true;
  return e;
}

}  // namespace possim::sim
