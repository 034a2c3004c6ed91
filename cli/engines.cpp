#include "cli/commands.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/error.hpp"
#include "sim/simgrid_engine.hpp"

namespace possim::cli {

std::string default_engine() { return "simgrid"; }
std::string engine_names() { return "simgrid (contention, discrete-event), analytic (closed form)"; }

std::unique_ptr<Engine> make_engine(const std::string& name, bool all_iterations, const std::string& reduce) {
  if (name == "analytic") return std::make_unique<AnalyticEngine>();
  sim::SimGridOptions sim;
  sim.reuse_repeating_iterations = !all_iterations;
  sim.reduce = reduce == "off"  ? sim::SimGridOptions::Reduce::off
               : reduce == "on" ? sim::SimGridOptions::Reduce::on
                                : sim::SimGridOptions::Reduce::automatic;
  if (name == "simgrid") return std::make_unique<sim::SimGridEngine>(sim);
  throw InputError("--engine", "unknown engine '" + name + "'", "simgrid or analytic");
}

}  // namespace possim::cli
