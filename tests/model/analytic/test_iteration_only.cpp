// RunOptions::iteration_only (model/run/engine.hpp): what a single-GPU baseline, a
// sigma-point rerun, a fit or a timed candidate scheme reads is the full run's, bit for bit;
// only the layer rows and the breakdown are left out.
#include <catch2/catch.hpp>

#include <initializer_list>

#include "model/analytic/analytic_engine.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;

namespace {

void same_but_rows(const SyncPlan& plan) {
  RunOptions only;
  only.iteration_only = true;
  for (const bool all_iterations : {false, true}) {
    const Result full = AnalyticEngine(all_iterations).run(plan, RunOptions{});
    const Result lean = AnalyticEngine(all_iterations).run(plan, only);
    INFO((all_iterations ? "every iteration scheduled" : "repeats read from iteration 0"));
    CHECK(lean.iteration_end_s == full.iteration_end_s);
    CHECK(lean.iteration_s == full.iteration_s);
    CHECK(lean.gpu_busy_s == full.gpu_busy_s);
    CHECK(lean.gpu_stall_s == full.gpu_stall_s);
    CHECK(lean.sent_bytes_max == full.sent_bytes_max);
    CHECK(lean.received_bytes_max == full.received_bytes_max);
    CHECK(lean.sent_bytes_mean == full.sent_bytes_mean);
    CHECK(lean.simulated_iterations == full.simulated_iterations);
    // What it leaves out, the full run has.
    CHECK(lean.layers.empty());
    CHECK(lean.breakdown.total() == 0);
    CHECK_FALSE(full.layers.empty());
    CHECK(full.breakdown.total() > 0);
  }
}

}  // namespace

TEST_CASE("analytic iteration_only runs give the full run's iteration times GPU busy time and bytes bit for bit",
          "[analytic][iteration-only]") {
  const Network net = small_cnn();  // a PlanRequest refers to its network
  const Profile flat = flat_profile();
  Profile interfering = flat;
  interfering.interference_kernel_slowdown = 1.035;
  interfering.interference_comm_slowdown = 3.2;
  for (const Profile* prof : std::initializer_list<const Profile*>{&flat, &interfering})
    for (const auto& s : strategy_names())
      for (int nodes : {1, 4, 16}) {
        PlanRequest r = request(net, *prof, nodes, 10, 32, 4);
        INFO(s << " on " << nodes << " nodes" << (prof == &interfering ? ", interference" : ""));
        same_but_rows(make_plan(s, r));
      }
  // Stragglers drawn per iteration: GPU busy time averaged over the iterations.
  PlanRequest r = request(net, flat, 8, 10, 32, 5);
  r.options.stragglers.kind = "lognormal";
  r.options.stragglers.sigma = 0.2;
  same_but_rows(make_plan("wfbp", r));
}
