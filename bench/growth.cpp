// How each engine's time per point grows (issue 27 item 5): VGG19-22K (the paper's model,
// shards colocated, 40 Gbit/s) at 8 to 4,096 nodes, and stacks of 16 to 2,000 fully
// connected layers at 8 nodes, per strategy; the growth exponent fitted in log-log.
// Analytic: plan built and evaluated in this process, the median of `repeats`. SimGrid:
// one run each through the engine possim uses (a forked child), as possim decides to fold
// or not; points past a strategy's SimGrid limit (below) are left out and say so.
// Usage: bench_growth [repeats] [--quick] [--nodes]   (--quick: up to 512 nodes and 250
// layers; --nodes: the table by nodes only)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engines/builtin_engines.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/profile.hpp"
#include "model/run/memory.hpp"
#include "model/strategies/strategy.hpp"
#include "model/workload/zoo.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;

namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// A stack of `layers` fully connected layers of 1024 x 1024 (1 Mi weights each), the
// layer count the only thing that grows.
Network fc_stack(int layers) {
  Network net;
  net.name = "fc_stack_" + std::to_string(layers);
  net.description = "bench: " + std::to_string(layers) + " fully connected layers of 1024 x 1024";
  net.input = Shape{1024, 1, 1};
  for (int i = 0; i < layers; ++i) {
    Layer l;
    l.name = "fc" + std::to_string(i);
    l.kind = LayerKind::fc;
    l.in = l.out = Shape{1024, 1, 1};
    l.weight_params = 1024 * 1024;
    l.bias_params = 1024;
    l.fc_m = l.fc_n = 1024;
    l.fwd_macs = 1024.0 * 1024;
    l.fwd_flops = 2 * l.fwd_macs;
    l.bwd_flops = 2 * l.fwd_flops;
    net.layers.push_back(l);
  }
  return net;
}

struct Point {
  double x = 0;            // nodes or layers
  double analytic_s = -1;  // per point
  double simgrid_s = -1;   // -1: not run
};

// Least squares slope of log(seconds) on log(x) over the points with x >= from.
double exponent(const std::vector<Point>& pts, double Point::*field, double from) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Point& p : pts) {
    if (p.x < from || p.*field <= 0) continue;
    const double x = std::log(p.x), y = std::log(p.*field);
    n += 1;
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  if (n < 2) return NAN;
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

std::string ms(double s) {
  if (s < 0) return "-";
  char b[32];
  std::snprintf(b, sizeof b, s < 0.01 ? "%.3f" : "%.1f", s * 1e3);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 5;
  bool quick = false, nodes_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else if (std::strcmp(argv[i], "--nodes") == 0) nodes_only = true;
    else repeats = std::max(1, std::atoi(argv[i]));
  }
  keep_freed_memory();  // as possim's commands do
  register_builtin_engines();
  const Profile profile = load_profile("titanx_maxwell");
  const std::vector<std::string> strategies = {"ps", "wfbp", "poseidon", "allreduce", "tree_allreduce"};
  // SimGrid's limits: the double tree's rounds are SimGrid activities one by one, and it
  // never folds (colocated shards fold by classes: sim/fold.hpp).
  const auto simgrid_nodes_max = [&](const std::string& s) { return s == "tree_allreduce" ? 128 : quick ? 512 : 4096; };
  const auto simgrid_layers_max = [&](const std::string& s) { return s == "tree_allreduce" ? 250 : quick ? 250 : 2000; };

  const auto point = [&](const Network& net, const std::string& strategy, int nodes, bool simgrid) {
    PlanRequest r;
    r.net = &net;
    r.profile = &profile;
    r.cluster.nodes = nodes;
    r.cluster.server_shards = nodes;
    r.cluster.nic_gbps = 40;
    r.batch_per_gpu = 32;
    r.iterations = 5;
    Point p;
    std::vector<double> wall;
    for (int i = 0; i < repeats; ++i)
      wall.push_back(seconds_of([&] { AnalyticEngine().run(make_plan(strategy, r), RunOptions{}); }));
    p.analytic_s = median(wall);
    if (simgrid) {
      const SyncPlan plan = make_plan(strategy, r);
      p.simgrid_s = seconds_of([&] { sim::SimGridEngine().run(plan, RunOptions{}); });
    }
    return p;
  };

  std::vector<int> nodes = {8, 32, 128, 512, 1024, 4096};
  std::vector<int> layers = {16, 64, 250, 1000, 2000};
  if (quick) {
    nodes = {8, 32, 128, 512};
    layers = {16, 64, 250};
  }
  // One row per strategy: per-point times at each x, and the fitted exponents.
  const auto table = [&](const std::vector<int>& xs, const char* unit, double analytic_from, double simgrid_from,
                         const std::function<Point(const std::string&, std::size_t)>& run) {
    std::printf("| strategy |");
    for (int x : xs) std::printf(" %d |", x);
    std::printf(" exponent analytic | exponent SimGrid |\n|---|");
    for (std::size_t i = 0; i < xs.size(); ++i) std::printf("---:|");
    std::printf("---:|---:|\n");
    std::fflush(stdout);
    for (const std::string& s : strategies) {
      std::vector<Point> pts;
      for (std::size_t i = 0; i < xs.size(); ++i) {
        pts.push_back(run(s, i));
        pts.back().x = xs[i];
        std::fprintf(stderr, "bench_growth: %s %d %s: analytic %s ms, SimGrid %s ms\n", s.c_str(), xs[i], unit,
                     ms(pts.back().analytic_s).c_str(), ms(pts.back().simgrid_s).c_str());
      }
      std::printf("| %s |", s.c_str());
      for (const Point& p : pts) std::printf(" %s / %s |", ms(p.analytic_s).c_str(), ms(p.simgrid_s).c_str());
      std::printf(" %.2f | %.2f |\n", exponent(pts, &Point::analytic_s, analytic_from),
                  exponent(pts, &Point::simgrid_s, simgrid_from));
      std::fflush(stdout);
    }
  };

  const Network vgg = make_zoo_network("vgg19_22k");
  std::printf("## Per point, by nodes: VGG19-22K, batch 32, 40 Gbit/s, shards colocated, 5 iterations\n\n");
  std::printf("Wall ms per point: analytic (plan built and evaluated, median of %d) / SimGrid (one run, forked).\n\n",
              repeats);
  table(nodes, "nodes", 128, 32, [&](const std::string& s, std::size_t i) {
    return point(vgg, s, nodes[i], nodes[i] <= simgrid_nodes_max(s));
  });
  std::printf("\nExponents: slope of log(time) on log(nodes), analytic from 128 nodes, SimGrid from 32 nodes "
              "(SimGrid runs: tree_allreduce to %d nodes, the others to %d).\n\n",
              simgrid_nodes_max("tree_allreduce"), simgrid_nodes_max("ps"));

  if (nodes_only) return 0;
  std::printf("## Per point, by layers: stacks of fully connected 1024 x 1024 layers, 8 nodes, as above\n\n");
  std::vector<Network> stacks;
  for (int l : layers) stacks.push_back(fc_stack(l));
  table(layers, "layers", 0, 0, [&](const std::string& s, std::size_t i) {
    return point(stacks[i], s, 8, layers[i] <= simgrid_layers_max(s));
  });
  std::printf("\nExponents: slope of log(time) on log(layers) over all points shown.\n");
  return 0;
}
