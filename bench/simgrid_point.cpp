// One SimGrid simulation in this process, for the scaling benchmark and for profilers
// (perf, heaptrack see the simulation itself, not a forked child).
// Usage: bench_simgrid_point MODEL STRATEGY NODES GBPS ITERATIONS [all] [full|reduce] [dedicated] [lmm]
//   all: simulate every iteration (no reuse of repeating ones)
//   full: every node simulated (--no-reduce); reduce: folded onto worker 0 (--reduce);
//         neither: as possim decides (folded from 32 nodes where exact)
//   dedicated: one dedicated server node per worker (default: one shard per node, colocated)
//   lmm: SimGrid's own solver shares the NIC links (--network-solver lmm; default: possim's star)
// Prints: wall_s iteration_s flows_per_iteration simulated_iterations reduced_to_nodes
//         sent_bytes_per_node_max
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/input/profile.hpp"
#include "model/run/memory.hpp"
#include "model/strategies/strategy.hpp"
#include "model/workload/zoo.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;

int main(int argc, char** argv) {
  keep_freed_memory();  // as possim's processes do (cli/main.cpp; the engine's child inherits it)
  bool all = false, dedicated = false;
  sim::SimGridOptions sim;
  for (int i = 6; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "all") all = true;
    else if (a == "full") sim.reduce = sim::SimGridOptions::Reduce::off;
    else if (a == "reduce") sim.reduce = sim::SimGridOptions::Reduce::on;
    else if (a == "dedicated") dedicated = true;
    else if (a == "lmm") sim.network = sim::NetworkBackend::lmm;
    else argc = 0;
  }
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s MODEL STRATEGY NODES GBPS ITERATIONS [all] [full|reduce] [dedicated] [lmm]\n", argv[0]);
    return 2;
  }
  const Network net = make_zoo_network(argv[1]);
  const Profile profile = load_profile("titanx_maxwell");
  PlanRequest r;
  r.net = &net;
  r.profile = &profile;
  r.cluster.nodes = std::atoi(argv[3]);
  r.cluster.server_shards = r.cluster.nodes;
  if (dedicated) r.cluster.placement = ServerPlacement::dedicated;
  r.cluster.nic_gbps = std::atof(argv[4]);
  r.batch_per_gpu = 32;
  r.iterations = std::atoi(argv[5]);
  const SyncPlan plan = make_plan(argv[2], r);
  const auto t0 = std::chrono::steady_clock::now();
  sim.reuse_repeating_iterations = !all;
  const Result res = sim::simulate_here(plan, RunOptions{}, sim);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.3f %.6f %.0f %d %d %.0f\n", wall, res.iteration_s, res.flows_per_iteration, res.simulated_iterations,
              res.reduced_to_nodes, res.sent_bytes_max);
  return 0;
}
