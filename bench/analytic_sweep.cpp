// Times the analytic engine over the whole design space the issue names:
// 9 models x 8 strategies x nodes 1..1024 (powers of two) x 7 bandwidths, one core.
// Each repeat builds every plan and evaluates it; prints per-repeat wall time and the
// median, plus the per-point cost, and the last repeat split into plan building and the
// engine per strategy. Usage: bench_analytic_sweep [repeats] [--all-iterations | --shared-plans]
// (--all-iterations: the engine schedules every iteration, as before repeated ones were read
// from iteration 0; --shared-plans: one plan per model, strategy and node count, set to each
// bandwidth in turn, as possim run's sweeps do on the analytic engine: model/run/sweep.cpp).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/analytic/analytic_engine.hpp"
#include "model/input/profile.hpp"
#include "model/run/memory.hpp"
#include "model/strategies/strategy.hpp"
#include "model/workload/zoo.hpp"

using namespace possim;

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  const std::string mode = argc > 2 ? argv[2] : "";
  const bool all_iterations = mode == "--all-iterations", shared_plans = mode == "--shared-plans";
  keep_freed_memory();  // as possim's commands do (cli/main.cpp)
  const Profile profile = load_profile("titanx_maxwell");
  std::vector<Network> nets;
  for (const auto& name : zoo_names()) nets.push_back(make_zoo_network(name));
  const std::vector<int> nodes = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
  const std::vector<double> gbps = {1, 2, 5, 10, 20, 30, 40};
  const AnalyticEngine engine(all_iterations);

  std::vector<double> wall;
  std::size_t points = 0;
  double checksum = 0;
  // Per strategy, the last repeat's seconds building plans and running the engine on them.
  std::map<std::string, std::pair<double, double>> split;
  for (int rep = 0; rep < repeats; ++rep) {
    points = 0;
    split.clear();
    const auto t0 = std::chrono::steady_clock::now();
    for (const Network& net : nets)
      for (const auto& strategy : strategy_names())
        for (int n : nodes) {
          SyncPlan plan;
          for (double g : gbps) {
            PlanRequest r;
            r.net = &net;
            r.profile = &profile;
            r.cluster.nodes = n;
            r.cluster.nic_gbps = g;
            r.cluster.server_shards = n;
            r.batch_per_gpu = 32;
            r.iterations = 3;
            const auto a = std::chrono::steady_clock::now();
            if (shared_plans && g != gbps.front()) plan.cluster.nic_gbps = g;
            else plan = make_plan(strategy, r);
            const auto b = std::chrono::steady_clock::now();
            checksum += engine.run(plan, RunOptions{}).iteration_s;
            const auto c = std::chrono::steady_clock::now();
            auto& [plan_s, engine_s] = split[strategy];
            plan_s += std::chrono::duration<double>(b - a).count();
            engine_s += std::chrono::duration<double>(c - b).count();
            ++points;
          }
        }
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::vector<double> sorted = wall;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  std::printf("| what | value |\n|---|---|\n");
  std::printf("| points per sweep | %zu |\n", points);
  std::printf("| repeats | %d |\n", repeats);
  for (int i = 0; i < repeats; ++i) std::printf("| sweep %d wall s | %.3f |\n", i + 1, wall[std::size_t(i)]);
  std::printf("| median sweep wall s | %.3f |\n", median);
  std::printf("| median per point us | %.1f |\n", median / double(points) * 1e6);
  std::printf("| target | < 0.5 s per sweep (50 us per point), one core |\n");
  // Where the last sweep's time went: building each strategy's plans, and the engine.
  std::printf("\n| strategy | plan build s | engine s | per point us |\n|---|---:|---:|---:|\n");
  double plans = 0, engines = 0;
  for (const auto& [strategy, s] : split) {
    std::printf("| %s | %.3f | %.3f | %.1f |\n", strategy.c_str(), s.first, s.second,
                (s.first + s.second) / double(points) * double(split.size()) * 1e6);
    plans += s.first;
    engines += s.second;
  }
  std::printf("| all | %.3f | %.3f | %.1f |\n", plans, engines, (plans + engines) / double(points) * 1e6);
  std::fprintf(stderr, "checksum %.9g\n", checksum);
  return 0;
}
