// One SimGrid simulation in this process, for the scaling benchmark and for profilers
// (perf, heaptrack see the simulation itself, not a forked child).
// Usage: bench_simgrid_point MODEL STRATEGY NODES GBPS ITERATIONS [all]
//   all: simulate every iteration (no reuse of repeating ones)
// Prints: wall_s iteration_s flows_per_iteration simulated_iterations
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "model/input/profile.hpp"
#include "model/strategies/strategy.hpp"
#include "model/workload/zoo.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;

int main(int argc, char** argv) {
  if (argc != 6 && !(argc == 7 && std::string(argv[6]) == "all")) {
    std::fprintf(stderr, "usage: %s MODEL STRATEGY NODES GBPS ITERATIONS [all]\n", argv[0]);
    return 2;
  }
  const Network net = make_zoo_network(argv[1]);
  const Profile profile = load_profile("titanx_maxwell");
  PlanRequest r;
  r.net = &net;
  r.profile = &profile;
  r.cluster.nodes = std::atoi(argv[3]);
  r.cluster.server_shards = r.cluster.nodes;
  r.cluster.nic_gbps = std::atof(argv[4]);
  r.batch_per_gpu = 32;
  r.iterations = std::atoi(argv[5]);
  const SyncPlan plan = make_plan(argv[2], r);
  const auto t0 = std::chrono::steady_clock::now();
  sim::SimGridOptions sim;
  sim.reuse_repeating_iterations = argc == 6;
  const Result res = sim::simulate_here(plan, RunOptions{}, sim);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.3f %.6f %.0f %d\n", wall, res.iteration_s, res.flows_per_iteration, res.simulated_iterations);
  return 0;
}
