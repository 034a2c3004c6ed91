#include "cli/commands.hpp"
#include "cli/sweep_shard.hpp"
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
                                    const LiveSettings* live, const std::string& coordinator, const Network* net,
                                    std::uint64_t seed, bool quiet, const std::string& network_solver) {
  if (network_solver != "star" && network_solver != "lmm")
    throw InputError("--network-solver", "", "unknown solver '" + network_solver.substr(0, 64) + "'",
                     "star (possim's, the default) or lmm (SimGrid's own, for checking)");
  if (!coordinator.empty() && name != "live")
    throw InputError("--coordinator", "", "only a live run has ranks to meet", "--engine live");
  if (name == "analytic") return std::make_unique<AnalyticEngine>();
  if (name == "live") {
    if (live == nullptr) throw InputError("--engine", "live is not available for this command", "simgrid or analytic");
    live::LiveOptions o;
    o.network_scale = live->network_scale;
    o.time_dilation = live->time_dilation;
    o.launch.netns = live->netns;
    o.launch.queue_ms = live->queue_ms;
    if (live->arithmetic) {
      if (net == nullptr) throw InputError("live.compute", "arithmetic is not available for this command", "emulated");
      o.launch.arithmetic.net = net;
      o.launch.arithmetic.learning_rate = live->learning_rate;
      o.launch.arithmetic.seed = seed;
    }
    if (live->kernels) {
      if (net == nullptr) throw InputError("live.compute", "kernels is not available for this command", "emulated");
      o.launch.kernels.net = net;
      o.launch.kernels.backend = live->kernel_backend;
    }
    o.launch.progress = [quiet](const std::string& line) {
      if (!quiet || line.rfind("warning", 0) == 0) std::cerr << "possim live: " << line << "\n";
    };
    const std::optional<Shard> rank = mpi_shard();
    if (rank && coordinator.empty())
      throw InputError("--coordinator", "", "a live run under mpirun needs the address where its ranks meet",
                       "--coordinator HOST:PORT (rank 0's address, a free port)");
    if (!coordinator.empty()) {
      const auto colon = coordinator.rfind(':');
      const std::string port = colon == std::string::npos ? "" : coordinator.substr(colon + 1);
      if (colon == std::string::npos || colon == 0 || port.empty() || port.size() > 5 ||
          port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 || std::stoi(port) > 65535)
        throw InputError("--coordinator", "", "'" + coordinator.substr(0, 64) + "' is not HOST:PORT",
                         "an IPv4 address and a port in [1, 65535], e.g. 10.0.0.1:7000");
      live::MpiRank m;
      m.rank = rank ? rank->index : 0;
      m.size = rank ? rank->count : 1;
      m.host = coordinator.substr(0, colon);
      m.port = std::stoi(port);
      o.mpi = m;
    }
    return std::make_unique<live::LiveEngine>(o);
  }
  sim::SimGridOptions sim;
  sim.reuse_repeating_iterations = !all_iterations;
  sim.reduce = reduce == "off"  ? sim::SimGridOptions::Reduce::off
               : reduce == "on" ? sim::SimGridOptions::Reduce::on
                                : sim::SimGridOptions::Reduce::automatic;
  sim.network = network_solver == "lmm" ? sim::NetworkBackend::lmm : sim::NetworkBackend::star;
  if (name == "simgrid") return std::make_unique<sim::SimGridEngine>(sim);
  throw InputError("--engine", "unknown engine '" + name + "'", "simgrid, analytic or live");
}

bool writes_results(const Engine& engine) {
  const auto* live = dynamic_cast<const live::LiveEngine*>(&engine);
  return live == nullptr || live->writes_results();
}

}  // namespace possim::cli
