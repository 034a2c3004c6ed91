// SimGrid engine: iterations that provably repeat are reported from the one they repeat.
// Every number must match a run that simulates every iteration, to rounding.
#include <algorithm>
#include <cmath>
#include <tuple>

#include <catch2/catch.hpp>

#include "support/fixtures.hpp"
#include "model/workload/zoo.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;
using namespace possim::test;

namespace {

Result simulate(const std::string& strategy, const PlanRequest& r, RunOptions o, bool reuse) {
  sim::SimGridOptions sim;
  sim.reuse_repeating_iterations = reuse;
  return sim::SimGridEngine(sim).run(make_plan(strategy, r), o);
}

// Same value to rounding of absolute clock values (clock ~1-100 s, so 1e-12 s absolute).
void same(double a, double b, const char* what) {
  INFO(what << ": " << a << " vs " << b);
  CHECK(std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-12);
}

void same_result(const Result& reused, const Result& full) {
  REQUIRE(reused.iteration_end_s.size() == full.iteration_end_s.size());
  for (std::size_t t = 0; t < full.iteration_end_s.size(); ++t)
    same(reused.iteration_end_s[t], full.iteration_end_s[t], "iteration end");
  same(reused.iteration_s, full.iteration_s, "iteration_s");
  same(reused.gpu_busy_s, full.gpu_busy_s, "gpu_busy_s");
  same(reused.sent_bytes_max, full.sent_bytes_max, "sent max");
  same(reused.sent_bytes_mean, full.sent_bytes_mean, "sent mean");
  same(reused.received_bytes_max, full.received_bytes_max, "received max");
  same(reused.received_bytes_mean, full.received_bytes_mean, "received mean");
  CHECK(reused.flows_per_iteration == full.flows_per_iteration);
  REQUIRE(reused.layers.size() == full.layers.size());
  for (std::size_t i = 0; i < full.layers.size(); ++i) {
    same(reused.layers[i].sync_start_s, full.layers[i].sync_start_s, "layer sync start");
    same(reused.layers[i].sync_end_s, full.layers[i].sync_end_s, "layer sync end");
  }
  REQUIRE(reused.links.size() == full.links.size());
  for (std::size_t i = 0; i < full.links.size(); ++i) {
    INFO(full.links[i].link);
    same(reused.links[i].bytes_per_iteration, full.links[i].bytes_per_iteration, "link bytes");
    same(reused.links[i].peak_utilization, full.links[i].peak_utilization, "link peak");
    same(reused.links[i].mean_utilization, full.links[i].mean_utilization, "link mean");
  }
  // The timeline: the same events at the same times, whatever order they were recorded in.
  REQUIRE(reused.timeline.size() == full.timeline.size());
  const auto sorted = [](std::vector<TimelineEvent> v) {
    std::sort(v.begin(), v.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
      return std::tie(a.iteration, a.track, a.start_s, a.name) < std::tie(b.iteration, b.track, b.start_s, b.name);
    });
    return v;
  };
  const auto a = sorted(reused.timeline), b = sorted(full.timeline);
  std::size_t mismatched = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].track != b[i].track || a[i].name != b[i].name || a[i].iteration != b[i].iteration ||
        std::abs(a[i].start_s - b[i].start_s) > 1e-9 || std::abs(a[i].duration_s - b[i].duration_s) > 1e-9)
      ++mismatched;
  CHECK(mismatched == 0);
}

}  // namespace

TEST_CASE("repeating iterations: every strategy, reported from the repeat, equals a full run",
          "[simgrid][repeats]") {
  // Four nodes at 1 Gbit/s: flows contend on every NIC, so the check is not trivial.
  const Network net = small_cnn();
  Profile prof = flat_profile();
  prof.per_message_s = 20e-6;
  RunOptions o;
  o.timeline = true;
  for (const auto& s : strategy_names()) {
    INFO(s);
    const PlanRequest r = request(net, prof, 4, 1, 32, 6);
    const Result reused = simulate(s, r, o, true), full = simulate(s, r, o, false);
    CHECK(full.simulated_iterations == 6);
    CHECK(reused.simulated_iterations == 2);  // iteration 1 repeats iteration 0
    same_result(reused, full);
  }
}

TEST_CASE("repeating iterations: VGG19 at 8 nodes with dedicated and colocated shards",
          "[simgrid][repeats]") {
  const Network net = make_zoo_network("vgg19");
  const Profile prof = flat_profile();
  for (const char* s : {"ps", "poseidon"})
    for (bool dedicated : {false, true}) {
      INFO(s << (dedicated ? " dedicated" : " colocated"));
      PlanRequest r = request(net, prof, 8, 10, 32, 5);
      if (dedicated) {
        r.cluster.placement = ServerPlacement::dedicated;
        r.cluster.server_shards = 3;
      }
      const Result reused = simulate(s, r, RunOptions{}, true), full = simulate(s, r, RunOptions{}, false);
      CHECK(reused.simulated_iterations < 5);
      same_result(reused, full);
    }
}

TEST_CASE("repeating iterations: fixed stragglers repeat, random ones and SSP never do",
          "[simgrid][repeats]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  PlanRequest r = request(net, prof, 4, 10, 32, 5);
  PlanRequest fixed = r;
  fixed.options.stragglers.kind = "fixed";
  fixed.options.stragglers.slowdown = {1.5, 1.0, 1.0, 1.0};
  const Result a = simulate("wfbp", fixed, {}, true), b = simulate("wfbp", fixed, {}, false);
  CHECK(a.simulated_iterations == 2);
  same_result(a, b);

  PlanRequest random = r;
  random.options.stragglers.kind = "lognormal";
  random.options.stragglers.sigma = 0.2;
  CHECK(simulate("wfbp", random, {}, true).simulated_iterations == 5);

  // SSP: iterations overlap (a worker runs ahead), so none starts from an idle cluster.
  r.options.consistency = Consistency::ssp;
  r.options.staleness = 1;
  const Result ssp = simulate("wfbp", r, RunOptions{}, true);
  CHECK(ssp.simulated_iterations == 5);
}
