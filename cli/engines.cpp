#include "cli/commands.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/error.hpp"
#include "live/live_engine.hpp"
#include "sim/simgrid_engine.hpp"

#include <iostream>

namespace possim::cli {

std::string default_engine() { return "simgrid"; }
std::string engine_names() {
  return "simgrid (contention, discrete-event), analytic (closed form), live (real processes and TCP)";
}

std::unique_ptr<Engine> make_engine(const std::string& name, bool all_iterations, const std::string& reduce,
                                    const LiveSettings* live) {
  if (name == "analytic") return std::make_unique<AnalyticEngine>();
  if (name == "live") {
    if (live == nullptr) throw InputError("--engine", "live is not available for this command", "simgrid or analytic");
    live::LiveOptions o;
    o.network_scale = live->network_scale;
    o.launch.netns = live->netns;
    o.launch.queue_ms = live->queue_ms;
    o.launch.progress = [](const std::string& line) { std::cerr << "possim live: " << line << "\n"; };
    return std::make_unique<live::LiveEngine>(o);
  }
  sim::SimGridOptions sim;
  sim.reuse_repeating_iterations = !all_iterations;
  sim.reduce = reduce == "off"  ? sim::SimGridOptions::Reduce::off
               : reduce == "on" ? sim::SimGridOptions::Reduce::on
                                : sim::SimGridOptions::Reduce::automatic;
  if (name == "simgrid") return std::make_unique<sim::SimGridEngine>(sim);
  throw InputError("--engine", "unknown engine '" + name + "'", "simgrid, analytic or live");
}

}  // namespace possim::cli
