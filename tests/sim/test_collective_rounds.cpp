// A collective runs its rounds in series, each a transfer then a latency, and while one
// collective waits out a round's latency the others in flight have the wire: the analytic
// engine against a hand-worked interleaving of two collectives, and against SimGrid.
#include <map>

#include <catch2/catch.hpp>

#include "support/two_fc.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/analytic/schedule.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;
using namespace possim::test;

namespace {

std::size_t task_of(const SyncPlan& plan, Step step, int layer) {
  for (std::size_t i = 0; i < plan.tasks.size(); ++i)
    if (plan.tasks[i].step == step && plan.tasks[i].layer == layer) return i;
  FAIL("no such task");
  return 0;
}

}  // namespace

TEST_CASE("two all-reduces in flight: each round's latency leaves the wire to the other by hand", "[analytic][simgrid][share]") {
  // Ring all-reduce of the two FC layers on 2 nodes: 2 rounds each, a round moving B/2 in
  // W/2 = B/2 / rate, then waiting one latency. Times chosen by hand: the latency is W/2 and
  // fc1's backward pass W/2, so fc1's all-reduce starts W/2 after fc2's, just as fc2's first
  // round leaves the wire for its latency. Round by round they interleave without sharing:
  //   fc2: wire [0, W/2], latency, wire [W, 3W/2], latency           -> ends at 2W
  //   fc1: wire [W/2, W], latency, wire [3W/2, 2W], latency           -> ends at 5W/2
  // (from the end of fc2's backward pass). As one piece each (all the work, then all the
  // latency), fc2 would share the wire from W/2 on and end at 5W/2, fc1 at 3W.
  const Network net = two_fc::net();
  const Profile prof = flat_profile();
  SyncPlan plan = make_plan("allreduce", request(net, prof, 2, 100, two_fc::kBatch, 1));
  const double w = two_fc::kBytes / two_fc::kNic;  // both rounds' wire time: 2 x B/2
  plan.tasks[task_of(plan, Step::backward, 0)].duration_s = w / 2;
  plan.rates.latency_s = w / 2;
  plan.rates.per_message_s = 0;
  const std::size_t fc2 = task_of(plan, Step::allreduce, 1);
  const analytic::Prepared p = analytic::prepare(plan);
  REQUIRE(p.rounds.size() == plan.tasks.size());
  CHECK(int(p.rounds[fc2]) == 2);
  CHECK(p.hold[fc2] == Approx(w).epsilon(1e-12));

  RunOptions opt;
  opt.timeline = true;
  const Result a = AnalyticEngine().run(plan, opt);
  const double t0 = two_fc::kLayer * (2 + 2 + 4) / 6;  // both forward passes (2 FLOPs a MAC), fc2's backward (4)
  std::map<std::string, std::pair<double, double>> span;
  for (const TimelineEvent& e : a.timeline)
    if (e.track == "representative worker NIC tx") span[e.name] = {e.start_s, e.start_s + e.duration_s};
  CHECK(span.at("allreduce fc2").first == Approx(t0).epsilon(1e-12));
  CHECK(span.at("allreduce fc2").second == Approx(t0 + 2 * w).epsilon(1e-12));
  CHECK(span.at("allreduce fc1").first == Approx(t0 + w / 2).epsilon(1e-12));
  CHECK(span.at("allreduce fc1").second == Approx(t0 + 2.5 * w).epsilon(1e-12));
  CHECK(a.iteration_s == Approx(t0 + 2.5 * w).epsilon(1e-12));

  // SimGrid runs each round as a flow after its latency: the same interleaving.
  const Result g = sim::SimGridEngine().run(plan, RunOptions{});
  CHECK(g.iteration_s == Approx(t0 + 2.5 * w).epsilon(1e-6));
}
