// SimGrid engine: possim's star solver (sim/network/star_sharing.hpp) against SimGrid's own
// max-min solver (a Comm per flow) on whole runs. Both carry the same fluid model of the
// same star, so every strategy must give the same iteration times, bytes, flows and link
// loads, up to the solvers' rounding: 8 and 16 nodes, colocated and dedicated shards, 1
// and 40 Gbit/s, a CNN whose slices are uneven, one flow per connection or per KV pair,
// and stragglers.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "support/fixtures.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;
using namespace possim::test;

namespace {

Result simulate(const SyncPlan& plan, sim::NetworkBackend backend, bool per_pair, const RunOptions& opt = {}) {
  sim::SimGridOptions o;
  o.network = backend;
  o.flow_per_kv_pair = per_pair;
  o.reduce = sim::SimGridOptions::Reduce::off;
  return sim::SimGridEngine(o).run(plan, opt);
}

// SimGrid's solver settles a share to maxmin/precision (1e-5 relative at most; measured
// agreement is ~1e-13): a bound that catches a different sharing, not rounding.
constexpr double kTolerance = 1e-6;
double worst = 0;

void same(const char* what, double star, double lmm) {
  const double diff = std::abs(star - lmm) / std::max(std::abs(lmm), 1e-12);
  worst = std::max(worst, diff);
  INFO(what << ": star " << star << ", lmm " << lmm);
  CHECK(diff <= kTolerance);
}

// Returns the star run (its timeline where `opt` asks for one).
Result agree(const SyncPlan& plan, bool per_pair, const RunOptions& opt = {}) {
  const Result a = simulate(plan, sim::NetworkBackend::star, per_pair, opt);
  const Result b = simulate(plan, sim::NetworkBackend::lmm, per_pair, opt);
  same("iteration s", a.iteration_s, b.iteration_s);
  REQUIRE(a.iteration_end_s.size() == b.iteration_end_s.size());
  for (std::size_t t = 0; t < a.iteration_end_s.size(); ++t) same("iteration end s", a.iteration_end_s[t], b.iteration_end_s[t]);
  same("sent bytes max", a.sent_bytes_max, b.sent_bytes_max);
  same("received bytes mean", a.received_bytes_mean, b.received_bytes_mean);
  same("GPU busy s", a.gpu_busy_s, b.gpu_busy_s);
  CHECK(a.flows_per_iteration == b.flows_per_iteration);
  REQUIRE(a.links.size() == b.links.size());
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    INFO(a.links[i].link);
    CHECK(a.links[i].link == b.links[i].link);
    same("link bytes/iteration", a.links[i].bytes_per_iteration, b.links[i].bytes_per_iteration);
    same("link peak utilization", a.links[i].peak_utilization, b.links[i].peak_utilization);
  }
  REQUIRE(a.layers.size() == b.layers.size());
  for (std::size_t l = 0; l < a.layers.size(); ++l) same("layer sync end s", a.layers[l].sync_end_s, b.layers[l].sync_end_s);
  return a;
}

// The most copies in flight at once on one track (a worker's PCIe lane in one direction).
int most_copies_at_once(const Result& r, const std::string& track) {
  std::vector<std::pair<double, int>> edges;
  for (const TimelineEvent& e : r.timeline)
    if (e.track == track) {
      edges.emplace_back(e.start_s, +1);
      edges.emplace_back(e.start_s + e.duration_s, -1);
    }
  std::sort(edges.begin(), edges.end());  // an end before a start at the same instant
  int now = 0, most = 0;
  for (const auto& [t, d] : edges) most = std::max(most, now += d);
  return most;
}

}  // namespace

TEST_CASE("possim's star solver and SimGrid's own give the same runs: every strategy, "
          "colocated and dedicated shards, 1 and 40 Gbit/s", "[simgrid][network]") {
  const Network net = small_cnn();
  Profile prof = flat_profile();
  prof.per_message_s = 20e-6;
  int runs = 0;
  for (const bool dedicated : {false, true})
    for (const double gbps : {1.0, 40.0})
      for (const int nodes : {8, 16})
        for (const auto& s : strategy_names()) {
          PlanRequest r = request(net, prof, nodes, gbps, 32, 3);
          if (dedicated) r.cluster.placement = ServerPlacement::dedicated;
          INFO(s << " at " << nodes << " nodes, " << gbps << " Gbit/s, " << (dedicated ? "dedicated" : "colocated"));
          agree(make_plan(s, r), false);
          ++runs;
        }
  CHECK(runs == 2 * 2 * 2 * int(strategy_names().size()));
  WARN("worst relative difference star vs lmm: " << worst);
}

TEST_CASE("possim's star solver and SimGrid's own agree with one flow per KV pair and with "
          "stragglers", "[simgrid][network]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  SECTION("a flow per KV pair: many flows of unequal bytes between the same two nodes") {
    PlanRequest r = request(net, prof, 8, 10, 32, 3);
    r.options.kv_pair_bytes = 64 * 1024;
    for (const char* s : {"ps", "wfbp", "poseidon"}) {
      INFO(s);
      agree(make_plan(s, r), true);
    }
  }
  SECTION("random stragglers: nodes out of step") {
    PlanRequest r = request(net, prof, 8, 10, 32, 4);
    r.options.stragglers.kind = "fixed";
    r.options.stragglers.slowdown = {1.5, 1, 1.2, 1, 1, 1, 1, 1.1};
    for (const char* s : {"ps", "wfbp", "poseidon", "allreduce"}) {
      INFO(s);
      agree(make_plan(s, r), false);
    }
  }
}

TEST_CASE("PCIe copies that share a lane: the star backend's PCIe star and SimGrid's own Comms "
          "give the same runs", "[simgrid][network]") {
  // A slow PCIe link (0.2 GB/s) against a fast GPU: every layer's gradient copy is still on
  // the lane when the next one starts, so copies share it max-min fairly for most of the run.
  const Network net = small_cnn();
  Profile prof = flat_profile();
  prof.pcie_bytes_per_s = 0.2e9;
  RunOptions opt;
  opt.timeline = true;
  for (const char* s : {"ps", "wfbp", "poseidon", "tf_stock"}) {
    INFO(s);
    PlanRequest r = request(net, prof, 8, 10, 32, 3);
    r.options.stragglers.kind = "fixed";
    r.options.stragglers.slowdown = {1.5, 1, 1.2, 1, 1, 1, 1, 1.1};
    const SyncPlan plan = make_plan(s, r);
    const Result star = agree(plan, false, opt);
    std::set<std::string> lanes;
    for (const TimelineEvent& e : star.timeline)
      if (e.track.find("PCIe") != std::string::npos) lanes.insert(e.track);
    int most = 0;
    for (const std::string& lane : lanes) most = std::max(most, most_copies_at_once(star, lane));
    CHECK(most >= 2);  // the lane was shared, so the comparison tests the sharing
  }
}
