// The analytic engine's work per point, held to a committed baseline (issue 27 item 5): a
// change that makes a point's closed form walk more than twice the steps it did fails here,
// exactly and on every machine, where a timed test would only be noise on shared cores.
// The baseline, tests/model/analytic/analytic_work.json, is rewritten after an intended change
// by running this test with POSSIM_WRITE_WORK_BASELINE=1 (the diff shows what moved).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "model/analytic/analytic_engine.hpp"
#include "model/plan/work_count.hpp"
#include "model/workload/zoo.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;
using json = nlohmann::json;

namespace {

const std::string kBaseline = std::string(POSSIM_TESTS_DIR) + "/model/analytic/analytic_work.json";

// One point's steps, counted on a thread of its own: the collective shapes a thread keeps
// (model/plan/collective.cpp) start empty, so the count does not depend on earlier tests.
// With `again`, the point's second evaluation on that thread: its shapes kept.
std::uint64_t work_of(const std::string& strategy, const Network& net, int nodes, bool again = false) {
  std::uint64_t steps = 0;
  std::thread([&] {
    const Profile prof = flat_profile();
    const SyncPlan plan = make_plan(strategy, request(net, prof, nodes, 10, 32, 3));
    for (int run = 0; run < (again ? 2 : 1); ++run) {
      work::steps = 0;  // the engine's work, not the plan's building
      AnalyticEngine().run(plan, RunOptions{});
    }
    steps = work::steps;
  }).join();
  return steps;
}

}  // namespace

TEST_CASE("analytic work per point: at most twice the committed baseline", "[analytic][work]") {
  std::map<std::string, std::uint64_t> now;
  for (const char* model : {"vgg19", "resnet50"}) {
    const Network net = make_zoo_network(model);
    for (const auto& s : strategy_names())
      for (int nodes : {8, 256}) now[std::string(model) + " " + s + " " + std::to_string(nodes)] = work_of(s, net, nodes);
  }
  if (const char* w = std::getenv("POSSIM_WRITE_WORK_BASELINE"); w && std::string(w) == "1") {
    std::ofstream(kBaseline) << json(now).dump(1) << "\n";
    WARN("wrote " << kBaseline);
  }
  std::ifstream in(kBaseline);
  REQUIRE(in);
  const json base = json::parse(in);
  for (const auto& [point, steps] : now) {
    INFO(point << ": " << steps << " steps; baseline " << base.value(point, 0ull)
                << " (an intended change: rerun with POSSIM_WRITE_WORK_BASELINE=1)");
    REQUIRE(base.contains(point));
    const std::uint64_t was = base.at(point).get<std::uint64_t>();
    CHECK(steps > 0);
    CHECK(steps <= 2 * was);
    if (steps * 2 < was) WARN(point << " now takes " << steps << " steps, under half its baseline " << was << ": rewrite it");
  }
  CHECK(base.size() == now.size());  // no stale point left in the baseline
}

TEST_CASE("analytic work per point: the collectives do not grow with the nodes", "[analytic][work]") {
  // Issue 27 item 1: a ring's and a PS shard's loads are formulas, a double tree's path is
  // read from its shape (built over the tree's distinct nodes, O(log P), and kept): walking
  // every worker's schedule instead grows with the nodes and fails here.
  const Network net = make_zoo_network("resnet50");
  for (const std::string strategy : {"allreduce", "hier_allreduce", "ps", "poseidon", "wfbp", "tree_allreduce"}) {
    INFO(strategy);
    const bool tree = strategy == "tree_allreduce";
    const std::uint64_t w8 = work_of(strategy, net, 8, tree), w4096 = work_of(strategy, net, 4096, tree);
    CHECK(double(w4096) <= 1.01 * double(w8));
  }
  // Building the tree's shapes (a fresh thread's work less a kept-shape run's) grows with
  // its depth and chunks, not its nodes: 512x the nodes from 8 to 4,096 (4x the depth),
  // 16x from 4,096 to 65,536 (4 levels more).
  const auto shapes = [&](int nodes) {
    return work_of("tree_allreduce", net, nodes) - work_of("tree_allreduce", net, nodes, true);
  };
  const std::uint64_t s8 = shapes(8), s4096 = shapes(4096);
  CHECK(s8 > 0);
  CHECK(s4096 < 16 * s8);
  CHECK(shapes(65536) < 2 * s4096);
}
