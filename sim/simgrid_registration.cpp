// The SimGrid engine as the registry knows it: contention simulated, symmetric clusters
// folded, every link's use recorded.
#include "model/run/engine_registry.hpp"
#include "sim/simgrid_engine.hpp"

namespace possim::sim {

void register_simgrid_engine() {
  EngineInfo e;
  e.name = "simgrid";
  e.summary = "contention, discrete-event";
  e.capabilities.reduces_symmetric = true;
  e.capabilities.per_link_stats = true;
  e.capabilities.runs_sweeps = true;
  e.make = [](const EngineRequest& q) {
    SimGridOptions o;
    o.reuse_repeating_iterations = !q.all_iterations;
    o.reduce = q.reduce == "off"  ? SimGridOptions::Reduce::off
               : q.reduce == "on" ? SimGridOptions::Reduce::on
                                  : SimGridOptions::Reduce::automatic;
    o.network = q.network_solver == "lmm" ? NetworkBackend::lmm : NetworkBackend::star;
    return std::make_unique<SimGridEngine>(o);
  };
  register_engine(std::move(e));
}

}  // namespace possim::sim
