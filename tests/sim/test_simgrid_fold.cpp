// SimGrid engine: a symmetric cluster folded onto worker 0 (sim/fold.hpp) must give the
// full simulation's iteration time, per-node bytes and flows, for every strategy the
// folding accepts, colocated and dedicated shards, 8 to 64 nodes, 1 and 40 Gbit/s; and the
// folding must refuse what it cannot do exactly.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "support/fixtures.hpp"
#include "sim/fold.hpp"
#include "model/plan/collective.hpp"
#include "sim/progress.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;
using namespace possim::test;

namespace {

using Reduce = sim::SimGridOptions::Reduce;

Result simulate(const SyncPlan& plan, Reduce reduce) {
  sim::SimGridOptions o;
  o.reduce = reduce;
  return sim::SimGridEngine(o).run(plan, RunOptions{});
}

// Every tensor splits evenly over 8..64 shards: each layer holds a multiple of 64 KV
// pairs of 4 KiB (1,024 parameters), so the hashing deals every shard the same slices.
Network even_net() {
  Network net;
  net.name = "even";
  net.input = Shape{7, 8, 8};
  net.layers.push_back(conv_layer("conv1", 7, 1024, 8));  // 65,536 parameters: 64 pairs
  net.layers.push_back(fc_layer("fc1", 256, 1024));       // 262,144: 256 pairs
  net.layers.push_back(fc_layer("fc2", 1024, 256));       // 262,144: 256 pairs
  return net;
}

PlanRequest even_request(const Network& net, const Profile& prof, int nodes, double gbps, bool dedicated) {
  PlanRequest r = request(net, prof, nodes, gbps, 32, 2);
  r.options.kv_pair_bytes = 4096;
  if (dedicated) r.cluster.placement = ServerPlacement::dedicated;
  return r;
}

bool close(double reduced, double full) {
  return std::abs(reduced - full) <= 0.005 * std::max(std::abs(full), 1e-12);
}

void agree(bool dedicated) {
  const Network net = even_net();
  Profile prof = flat_profile();
  prof.per_message_s = 20e-6;
  // What the folding must accept (tf_stock and adam put whole tensors on some shards,
  // tree_allreduce's workers differ; they are folded where they can be, checked below).
  const std::vector<std::string> must = {"ps", "wfbp", "poseidon", "onebit", "allreduce"};
  int folded = 0;
  for (const double gbps : {1.0, 40.0})
    for (const int nodes : {8, 16, 32, 64})
      for (const auto& s : strategy_names()) {
          // The rest at 8 and 16 nodes only, to keep the test short.
          const bool must_fold = std::find(must.begin(), must.end(), s) != must.end();
          if (!must_fold && nodes > 16) continue;
          const SyncPlan plan = make_plan(s, even_request(net, prof, nodes, gbps, dedicated));
          const std::string why = sim::fold_refusal(plan);
          INFO(s << " at " << nodes << " nodes, " << gbps << " Gbit/s, "
                 << (dedicated ? "dedicated" : "colocated") << " shards: " << (why.empty() ? "folded" : why));
          if (must_fold) CHECK(why.empty());
          if (!why.empty() || plan.workers < 2) continue;
          const Result full = simulate(plan, Reduce::off), reduced = simulate(plan, Reduce::on);
          ++folded;
          CHECK(full.reduced_to_nodes == 0);
          CHECK(reduced.reduced_to_nodes == (dedicated ? 1 + nodes : 1));
          INFO("iteration " << reduced.iteration_s << " s folded, " << full.iteration_s << " s full");
          CHECK(close(reduced.iteration_s, full.iteration_s));
          CHECK(close(reduced.sent_bytes_max, full.sent_bytes_max));
          CHECK(close(reduced.received_bytes_max, full.received_bytes_max));
          CHECK(close(reduced.sent_bytes_mean, full.sent_bytes_mean));
          CHECK(close(reduced.received_bytes_mean, full.received_bytes_mean));
          CHECK(close(reduced.flows_per_iteration, full.flows_per_iteration));
          CHECK(close(reduced.gpu_busy_s, full.gpu_busy_s));
          REQUIRE(reduced.links.size() == full.links.size());
          for (std::size_t i = 0; i < full.links.size(); ++i) {
            INFO(full.links[i].link);
            CHECK(reduced.links[i].link == full.links[i].link);
            CHECK(close(reduced.links[i].bytes_per_iteration, full.links[i].bytes_per_iteration));
          }
        }
  CHECK(folded >= 2 * 4 * int(must.size()));
}

}  // namespace

TEST_CASE("folded onto worker 0, a symmetric cluster with colocated shards gives the full "
          "simulation's times and bytes", "[simgrid][fold]") {
  agree(false);
}

TEST_CASE("folded onto worker 0, a symmetric cluster with dedicated servers gives the full "
          "simulation's times and bytes", "[simgrid][fold]") {
  agree(true);
}

TEST_CASE("the folding refuses what it cannot do exactly, and says why", "[simgrid][fold]") {
  const Network net = even_net();
  const Profile prof = flat_profile();
  SECTION("stragglers") {
    // Drawn for every worker: no two workers alike, nothing folds (a fixed slow node folds
    // by classes, a class of its own: tests/sim/test_simgrid_class_fold.cpp).
    PlanRequest r = even_request(net, prof, 8, 10, true);
    r.options.stragglers.kind = "lognormal";
    r.options.stragglers.sigma = 0.2;
    const SyncPlan plan = make_plan("wfbp", r);
    CHECK_THAT(sim::fold_refusal(plan), Catch::Contains("stragglers"));
    CHECK_THROWS_AS(simulate(plan, Reduce::on), InputError);
    // Automatic: every node simulated, not an error.
    sim::SimGridOptions o;
    o.reduce_from_workers = 2;
    CHECK_FALSE(sim::reduces(plan, o));
  }
  SECTION("colocated shards that do not divide over the nodes, or uneven slices") {
    PlanRequest r = even_request(net, prof, 8, 10, false);
    r.cluster.server_shards = 12;
    CHECK_THAT(sim::fold_refusal(make_plan("ps", r)), Catch::Contains("do not divide evenly"));
    const Network cnn = small_cnn();
    r = request(cnn, prof, 8, 10, 32, 2);  // 2 MiB pairs: conv1 is one pair on one shard
    CHECK_THAT(sim::fold_refusal(make_plan("ps", r)), Catch::Contains("unequal slices"));
    r.cluster.placement = ServerPlacement::dedicated;  // dedicated servers stay one by one
    CHECK(sim::fold_refusal(make_plan("ps", r)).empty());
  }
  SECTION("a collective whose workers differ") {
    const SyncPlan plan = make_plan("tree_allreduce", even_request(net, prof, 8, 10, false));
    CHECK_THAT(sim::fold_refusal(plan), Catch::Contains("double_tree"));
  }
  SECTION("automatic: from the threshold only, and never with --no-reduce") {
    const SyncPlan small = make_plan("ps", even_request(net, prof, 8, 10, false));
    const SyncPlan large = make_plan("ps", even_request(net, prof, 32, 10, false));
    const sim::SimGridOptions o;
    CHECK_FALSE(sim::reduces(small, o));
    CHECK(sim::reduces(large, o));
    sim::SimGridOptions off;
    off.reduce = Reduce::off;
    CHECK_FALSE(sim::reduces(large, off));
  }
}

TEST_CASE("a folded ring all-reduce's clock-step budget counts its rounds over every worker", "[simgrid][fold]") {
  // Folded, worker 0 alone runs each tensor's 2(P-1) rounds: a budget counting the rounds of
  // a one-worker ring (none) stopped VGG19-22K at 4,096 nodes after 1.07 million steps.
  const Network net = even_net();
  const Profile prof = flat_profile();
  const int nodes = 64;
  const SyncPlan plan = make_plan("allreduce", even_request(net, prof, nodes, 40, false));
  sim::SimGridOptions o;
  o.reduce = Reduce::on;
  REQUIRE(sim::reduces(plan, o));
  std::uint64_t rounds = 0;  // worker 0's sends over the run
  for (const Task& t : plan.tasks)
    if (t.pattern == FlowPattern::collective)
      rounds += std::uint64_t(collective_load(t.collective, nodes, t.bytes, t.chunks).messages_max);
  rounds *= std::uint64_t(std::max(1, plan.iterations));
  REQUIRE(rounds >= std::uint64_t(2 * (nodes - 1)));
  const std::uint64_t budget = sim::clock_step_budget(plan, o);
  CHECK(budget >= sim::SimProgress::kStepsBase + sim::SimProgress::kStepsPerEvent * rounds);
  o.max_clock_steps = 12345;  // as given
  CHECK(sim::clock_step_budget(plan, o) == 12345);
}
