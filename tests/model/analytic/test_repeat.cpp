// The analytic engine's repeated iterations (model/analytic/repeat.hpp): read from the
// first iteration where each begins on an idle worker, the same numbers as every iteration
// scheduled, to rounding of absolute times; and every iteration scheduled where they do
// not repeat (workers drifting under SSP, stragglers drawn per iteration, iterations that
// overlap), bit for bit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "model/analytic/analytic_engine.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;

namespace {

// Every figure the engine gives, a to b, within `tol` of the iteration's length.
void same_figures(const Result& a, const Result& b, double tol) {
  const double within = tol * a.iteration_s;
  REQUIRE(a.iteration_end_s.size() == b.iteration_end_s.size());
  for (std::size_t t = 0; t < a.iteration_end_s.size(); ++t)
    CHECK(std::abs(a.iteration_end_s[t] - b.iteration_end_s[t]) <= within * double(t + 1));
  CHECK(std::abs(a.iteration_s - b.iteration_s) <= within);
  CHECK(std::abs(a.gpu_busy_s - b.gpu_busy_s) <= within);
  for (std::size_t x = 0; x < a.breakdown.s.size(); ++x) CHECK(std::abs(a.breakdown.s[x] - b.breakdown.s[x]) <= within);
  REQUIRE(a.layers.size() == b.layers.size());
  // Which layer a wait counts against is decided where two instances end at the same time
  // (breakdown.hpp's walk follows the one that released its successor): scheduled at
  // other absolute times, iterations alike in exact arithmetic may decide such a tie
  // apart. The layers' sum of each share is not decided by it.
  Breakdown layers_a, layers_b;
  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    CHECK(std::abs(a.layers[l].sync_start_s - b.layers[l].sync_start_s) <= within);
    CHECK(std::abs(a.layers[l].sync_end_s - b.layers[l].sync_end_s) <= within);
    layers_a += a.layers[l].breakdown;
    layers_b += b.layers[l].breakdown;
  }
  for (std::size_t x = 0; x < a.breakdown.s.size(); ++x) CHECK(std::abs(layers_a.s[x] - layers_b.s[x]) <= within);
  REQUIRE(a.timeline.size() == b.timeline.size());
  for (std::size_t e = 0; e < a.timeline.size(); ++e) {
    CHECK(a.timeline[e].name == b.timeline[e].name);
    CHECK(a.timeline[e].iteration == b.timeline[e].iteration);
    CHECK(std::abs(a.timeline[e].start_s - b.timeline[e].start_s) <= within * double(a.timeline[e].iteration + 1));
    CHECK(std::abs(a.timeline[e].duration_s - b.timeline[e].duration_s) <= within);
  }
}

struct Both {
  Result all, reused;
};

Both run_both(const SyncPlan& plan) {
  RunOptions opt;
  opt.timeline = true;
  return {AnalyticEngine(true).run(plan, opt), AnalyticEngine(false).run(plan, opt)};
}

// Iteration 0 alone was scheduled, and the others read from it agree with every iteration
// scheduled.
void read_from_first(const Both& b) {
  CHECK(b.reused.simulated_iterations == 1);
  same_figures(b.all, b.reused, 1e-12);
}

// Every iteration was scheduled, by default as with --all-iterations: the same numbers, bit
// for bit.
void all_scheduled(const Both& b, int iterations) {
  CHECK(b.reused.simulated_iterations == iterations);
  CHECK(b.reused.iteration_end_s == b.all.iteration_end_s);
  CHECK(b.reused.breakdown.s == b.all.breakdown.s);
}

}  // namespace

TEST_CASE("analytic iterations that repeat are read from the first: the figures of every iteration scheduled",
          "[analytic][repeat]") {
  const Profile prof = flat_profile();
  for (const Network& net : {small_cnn(), square_fc_pair(1024)})
    for (const auto& s : strategy_names())
      for (int nodes : {1, 4, 16})
        for (double gbps : {1.0, 10.0})
          for (const ServerPlacement placement : {ServerPlacement::colocated, ServerPlacement::dedicated}) {
            if (nodes == 1 && placement == ServerPlacement::dedicated) continue;
            PlanRequest r = request(net, prof, nodes, gbps, 32, 5);
            r.cluster.placement = placement;
            if (placement == ServerPlacement::dedicated) r.cluster.server_shards = 2;
            const SyncPlan plan = make_plan(s, r);
            const Both b = run_both(plan);
            INFO(net.name << " " << s << " on " << nodes << " nodes at " << gbps << " Gbit/s"
                          << (placement == ServerPlacement::dedicated ? ", dedicated servers" : ""));
            CHECK(b.all.simulated_iterations == 5);
            read_from_first(b);  // BSP, undisturbed: every iteration alike
          }
}

TEST_CASE("analytic iterations that repeat under compute/communication interference: the same figures",
          "[analytic][repeat][interference]") {
  // Interference changes rates while the other kind is in flight: state the schedule carries
  // within an iteration, back to none at its end.
  const Network net = small_cnn();
  Profile prof = flat_profile();
  prof.interference_kernel_slowdown = 1.035;
  prof.interference_comm_slowdown = 3.2;
  for (const std::string s : {"allreduce", "hier_allreduce", "tree_allreduce", "wfbp", "poseidon"})
    for (int gpus : {1, 4}) {
      PlanRequest r = request(net, prof, 4, 10, 32, 4);
      r.cluster.gpus_per_node = gpus;
      const Both b = run_both(make_plan(s, r));
      INFO(s << ", " << gpus << " GPUs a node");
      read_from_first(b);
    }
}

TEST_CASE("analytic iterations that do not repeat are all scheduled: SSP and stragglers drawn per iteration",
          "[analytic][repeat]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  SECTION("SSP: an iteration waits on one further back than the one before") {
    PlanRequest r = request(net, prof, 8, 1, 32, 6);
    r.options.consistency = Consistency::ssp;
    r.options.staleness = 2;
    const Both b = run_both(make_plan("wfbp", r));
    all_scheduled(b, 6);
  }
  SECTION("lognormal stragglers: each iteration its slowest worker") {
    PlanRequest r = request(net, prof, 8, 10, 32, 5);
    r.options.stragglers.kind = "lognormal";
    r.options.stragglers.sigma = 0.2;
    const Both b = run_both(make_plan("wfbp", r));
    all_scheduled(b, 5);
  }
  SECTION("fixed stragglers: the same slowest worker every iteration, so they repeat") {
    PlanRequest r = request(net, prof, 4, 10, 32, 5);
    r.options.stragglers.kind = "fixed";
    r.options.stragglers.slowdown = {2, 1, 1, 1};
    const Both b = run_both(make_plan("wfbp", r));
    read_from_first(b);
  }
}

TEST_CASE("analytic iterations that overlap are all scheduled: the second is checked, not assumed",
          "[analytic][repeat]") {
  // Without its dependencies on the iteration before, each iteration is ready at 0 and
  // its work interleaves with the first's: the second does not repeat the first, and
  // reading it shifted would put every iteration after the one before.
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const auto& s : {"single", "wfbp", "allreduce"}) {
    SyncPlan plan = make_plan(s, request(net, prof, 4, 10, 32, 4));
    for (Task& t : plan.tasks) {
      DepList kept;
      for (const Dep& d : t.deps)
        if (d.lag == 0) kept.push_back(d);
      t.deps = kept;
    }
    const Both b = run_both(plan);
    INFO(s);
    all_scheduled(b, 4);
    // The iterations really overlap: the second ends well before twice the first.
    CHECK(b.all.iteration_end_s[1] < 1.9 * b.all.iteration_end_s[0]);
  }
}
