#include "cli/options.hpp"

#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/strategies/strategy.hpp"

namespace possim::cli {

bool parse(const std::string& command, const std::vector<std::string>& args,
           po::options_description& desc, const po::positional_options_description& pos,
           po::variables_map& vm, const std::string& usage, const std::string& epilogue) {
  desc.add_options()("help,h", "show this help");
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: possim " << command << ' ' << usage << "\n\n" << desc << '\n';
      if (!epilogue.empty()) std::cout << epilogue;
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError("possim " + command, "command line", e.what(),
                     "possim " + command + " " + usage);
  }
  return true;
}

void add_engine_option(po::options_description& desc, std::string& engine_name) {
  desc.add_options()("engine", po::value(&engine_name)->default_value(default_engine()),
                     ("engine: " + engine_summaries()).c_str());
}

void add_all_iterations_option(po::options_description& desc, bool& all_iterations) {
  desc.add_options()("all-iterations", po::bool_switch(&all_iterations),
                     "simulate (analytic: schedule) every iteration, even those that provably repeat the one before");
}

void add_reduce_options(po::options_description& desc, bool& reduce, bool& no_reduce) {
  desc.add_options()("reduce", po::bool_switch(&reduce),
                     "SimGrid: fold the workers onto worker 0 at any size (exact; refused where the cluster "
                     "is not symmetric); by default from 32 nodes where exact")(
      "no-reduce", po::bool_switch(&no_reduce), "SimGrid: simulate every node, never folded");
}

std::string reduce_mode(bool reduce, bool no_reduce) {
  if (reduce && no_reduce) throw InputError("--reduce", "", "given with --no-reduce", "one of them");
  return reduce ? "on" : no_reduce ? "off" : "auto";
}

}  // namespace possim::cli

namespace possim::cli {

void add_point_options(po::options_description& desc, std::string& strategy, int& nodes, double& gbps) {
  desc.add_options()("strategy", po::value(&strategy), "strategy (default: poseidon if listed, else the first)")(
      "nodes", po::value(&nodes), "node count (default: the largest in the scenario)")(
      "gbps", po::value(&gbps), "NIC Gbit/s (default: the first in the scenario)");
}

SweepPoint choose_point(const Scenario& s, const po::variables_map& vm, std::string& strategy, int& nodes,
                        double& gbps) {
  if (strategy.empty())
    strategy = std::count(s.strategies.begin(), s.strategies.end(), "poseidon") ? "poseidon"
                                                                              : s.strategies.front();
  if (!is_strategy(strategy))
    throw InputError("--strategy", "", "unknown strategy '" + json_check::quoted(strategy) + "'",
                     "one of " + json_check::list(strategy_names()));
  if (!vm.count("nodes")) nodes = *std::max_element(s.nodes.begin(), s.nodes.end());
  if (!vm.count("gbps")) gbps = s.nic_gbps.front();
  // The scenario's own limits (model/limits.hpp): the node count sizes what the engines
  // allocate, and a NaN bandwidth would make the network free.
  const long long max_nodes = std::min(limits::kMaxNodes, limits::kMaxGpus / s.gpus_per_node);
  if (nodes < 1 || nodes > max_nodes)
    throw InputError("--nodes", "", std::to_string(nodes) + " is not a node count in the limit",
                     "an integer in [1, " + std::to_string(max_nodes) + "]");
  if (!(gbps >= 0.1 && gbps <= 1000))
    throw InputError("--gbps", "", fixed(gbps, 3) + " is out of range", "0.1 to 1000");
  if (s.placement == ServerPlacement::colocated && s.server_shards > nodes)
    throw InputError("--nodes", "",
                     std::to_string(nodes) + " nodes cannot hold the scenario's " +
                         std::to_string(s.server_shards) + " colocated shards",
                     "at least " + std::to_string(s.server_shards) + " nodes");
  return SweepPoint{strategy, nodes, gbps};
}

}  // namespace possim::cli
