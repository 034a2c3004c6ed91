// The SimGrid engine as the registry knows it: contention simulated, symmetric clusters
// folded, every link's use recorded.
#include "sim/simgrid_engine.hpp"
#include "sim/simgrid_info.hpp"

namespace possim::sim {

std::unique_ptr<Engine> make_simgrid_engine(const EngineRequest& q) {
  SimGridOptions o;
  o.reuse_repeating_iterations = !q.all_iterations;
  o.reduce = q.reduce == "off"  ? SimGridOptions::Reduce::off
             : q.reduce == "on" ? SimGridOptions::Reduce::on
                                : SimGridOptions::Reduce::automatic;
  o.network = q.network_solver == "lmm" ? NetworkBackend::lmm : NetworkBackend::star;
  o.quiet = q.quiet;
  return std::make_unique<SimGridEngine>(o);
}

void register_simgrid_engine() {
  EngineInfo e = simgrid_engine_info();
  e.make = make_simgrid_engine;
  register_engine(std::move(e));
}

}  // namespace possim::sim
