#include "cli/commands.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/error.hpp"
#include "sim/simgrid_engine.hpp"

namespace possim::cli {

std::string default_engine() { return "simgrid"; }
std::string engine_names() { return "simgrid (contention, discrete-event), analytic (closed form)"; }

std::unique_ptr<Engine> make_engine(const std::string& name) {
  if (name == "analytic") return std::make_unique<AnalyticEngine>();
  if (name == "simgrid") return std::make_unique<sim::SimGridEngine>();
  throw InputError("--engine", "unknown engine '" + name + "'", "simgrid or analytic");
}

}  // namespace possim::cli
