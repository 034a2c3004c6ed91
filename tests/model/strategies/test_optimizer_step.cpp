// The workers' optimizer step (issue 28 item 3d): where a profile times it apart from the
// layers (optimizer_bytes_per_s, measured-kernel profiles), the all-reduce family and the
// single-GPU baseline run a GPU task of params x 20 bytes at that rate after the step's
// barrier, and the next forward waits for it; parameter-server strategies update on the
// servers and are unchanged. Held by hand on both engines, and in the live engine's plan.
#include <catch2/catch.hpp>

#include "model/analytic/analytic_engine.hpp"
#include "live/live_engine.hpp"
#include "model/run/plan_json.hpp"
#include "sim/simgrid_engine.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;
using Approx = Catch::Detail::Approx;

namespace {

double params_of(const Network& net) {
  double p = 0;
  for (const Layer& l : net.layers) p += double(l.params());
  return p;
}

int optimizer_tasks(const SyncPlan& plan) {
  int n = 0;
  for (const Task& t : plan.tasks) n += t.step == Step::optimizer;
  return n;
}

}  // namespace

TEST_CASE("the optimizer step: params x 20 bytes at the profile's rate, on the critical path",
          "[optimizer][engines]") {
  const Network net = small_cnn();
  const Profile without = flat_profile();
  Profile with = without;
  with.optimizer_bytes_per_s = 1e9;  // slow enough to see: 20 B per parameter at 1 GB/s
  const double step_s = params_of(net) * 20 / 1e9;
  REQUIRE(step_s > 1e-4);
  for (const std::string s : {"single", "allreduce", "tree_allreduce", "hier_allreduce"}) {
    INFO(s);
    PlanRequest a = request(net, without, 4, 10, 32, 3), b = request(net, with, 4, 10, 32, 3);
    a.cluster.gpus_per_node = b.cluster.gpus_per_node = 2;
    const SyncPlan p0 = make_plan(s, a), p1 = make_plan(s, b);
    CHECK(optimizer_tasks(p0) == 0);
    REQUIRE(optimizer_tasks(p1) == 1);
    for (const Task& t : p1.tasks)
      if (t.step == Step::optimizer) {
        CHECK(t.resource == Resource::gpu);
        CHECK(t.duration_s == Approx(step_s).epsilon(1e-12));
      }
    // After the barrier (or the last backward), before the next forward: all of it exposed.
    CHECK(AnalyticEngine().run(p1, {}).iteration_s ==
          Approx(AnalyticEngine().run(p0, {}).iteration_s + step_s).epsilon(1e-9));
    CHECK(sim::SimGridEngine().run(p1, {}).iteration_s ==
          Approx(sim::SimGridEngine().run(p0, {}).iteration_s + step_s).epsilon(1e-6));
    // The GPU is busy for it: it counts as compute.
    CHECK(AnalyticEngine().run(p1, {}).gpu_busy_s ==
          Approx(AnalyticEngine().run(p0, {}).gpu_busy_s + step_s).epsilon(1e-9));
    // A plan file keeps it.
    const SyncPlan back = plan_from_json(plan_to_json(p1), "plan.json");
    CHECK(optimizer_tasks(back) == 1);
  }
  for (const std::string s : {"ps", "wfbp", "poseidon"}) {
    INFO(s << ": the shards apply the update");
    const SyncPlan p1 = make_plan(s, request(net, with, 4, 10, 32, 3));
    CHECK(optimizer_tasks(p1) == 0);
    CHECK(AnalyticEngine().run(p1, {}).iteration_s ==
          AnalyticEngine().run(make_plan(s, request(net, without, 4, 10, 32, 3)), {}).iteration_s);
  }
}

TEST_CASE("the measured H200 profile times the optimizer step at its measured copy rate", "[optimizer][profile]") {
  const Profile p = load_profile("h200_measured");
  CHECK(p.optimizer_bytes_per_s == Approx(4.205e12).epsilon(1e-3));
  CHECK(p.sources.at("optimizer_bytes_per_s").find("roofline") != std::string::npos);
  // Derived profiles keep it in their layer times (Caffe's solver was timed with its layers).
  CHECK(load_profile("h200").optimizer_bytes_per_s == 0);
  CHECK(load_profile("titanx_maxwell").optimizer_bytes_per_s == 0);
}

TEST_CASE("the live engine's GPU waits out the optimizer step", "[optimizer][live]") {
  const Network net = small_cnn();
  const Profile without = flat_profile();
  Profile with = without;
  with.optimizer_bytes_per_s = params_of(net) * 20 / 0.05;  // a 50 ms step
  live::LiveOptions o;
  o.network_scale = 100;
  o.launch.netns = false;
  const Result a = live::LiveEngine(o).run(make_plan("allreduce", request(net, without, 2, 40, 32, 4)), {});
  const Result b = live::LiveEngine(o).run(make_plan("allreduce", request(net, with, 2, 40, 32, 4)), {});
  INFO("live iterations " << a.iteration_s << " s without, " << b.iteration_s << " s with");
  // A live wait ends late on a busy machine, never early; the GPU is busy for it.
  CHECK(b.gpu_busy_s - a.gpu_busy_s >= 0.05 * 0.95);
  CHECK(b.iteration_s - a.iteration_s > 0.05 * 0.5);
}
