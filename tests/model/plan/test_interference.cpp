// Compute/communication interference (Rates::interference_*, model/plan/interference.hpp):
// a GPU kernel overlapped by a communication kernel for o seconds takes d + o (1 - 1/f)
// (the fluid model), a GPU-to-GPU transfer overlapped by kernels likewise. By hand on
// every engine, the analytic engine's one-pass schedule against SimGrid's power states
// and as the fixed point of fluid passes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "live/live_engine.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/profile_derive.hpp"
#include "model/plan/interference.hpp"
#include "model/run/sweep.hpp"
#include "model/strategies/strategy.hpp"
#include "model/run/plan_json.hpp"
#include "sim/simgrid_engine.hpp"
#include "support/fixtures.hpp"
#include "support/two_fc.hpp"

using namespace possim;
using namespace possim::test;
using Approx = Catch::Detail::Approx;

namespace {

using namespace possim::test::two_fc;
Network two_fc_net() { return two_fc::net(); }
// A ring all-reduce of one layer on two nodes: two rounds of B/2.
const double kRing = kBytes / kNic + 2 * kStep;

// The seconds of the first timeline slice of `step` on layer `layer` (iteration 1).
double slice_s(const Result& r, Step step, int layer) {
  for (const TimelineEvent& e : r.timeline)
    if (e.category == to_string(step) && e.layer == layer && e.iteration == 1) return e.duration_s;
  FAIL("no " << to_string(step) << " slice of layer " << layer);
  return 0;
}

}  // namespace

TEST_CASE("communication kernels slow an overlapped kernel by the fluid model, by hand, on every engine",
          "[interference][engines][live]") {
  const Network net = two_fc_net();
  Profile prof = flat_profile();
  prof.interference_kernel_slowdown = 3;
  const SyncPlan plan = make_plan("allreduce", request(net, prof, 2, 100, kBatch, 3));
  REQUIRE(plan.rates.interference_kernel_slowdown == 3);
  // fc2's all-reduce (kRing, 0.9 ms) runs under fc1's backward (2.1 ms), which does a
  // third of its work meanwhile: it takes kRing (1 - 1/3) longer. fc1's all-reduce is
  // exposed and overlaps nothing.
  const double free_s = 2 * kLayer + kRing;
  const double expected = free_s + kRing * (1 - 1.0 / 3);
  const Result a = AnalyticEngine().run(plan, {});
  const Result s = sim::SimGridEngine().run(plan, {});
  CHECK(a.iteration_s == Approx(expected).epsilon(1e-9));
  CHECK(s.iteration_s == Approx(expected).epsilon(1e-6));
  // The GPU was busy for the stretched kernel's whole time.
  CHECK(a.gpu_busy_s == Approx(2 * kLayer + kRing * (1 - 1.0 / 3)).epsilon(1e-9));
  CHECK(s.gpu_busy_s == Approx(a.gpu_busy_s).epsilon(1e-6));
  // Live, emulated GPUs over loopback: never faster than the plan, so slower than without.
  live::LiveOptions o;
  o.launch.netns = false;
  // Loose above: on a loaded machine loopback's rounds run late, and the kernel beside
  // them is slowed for as long as they really take.
  const Result l = live::LiveEngine(o).run(plan, {});
  CHECK(l.iteration_s >= expected * 0.99);
  CHECK(l.iteration_s <= expected * 3 + 0.02);
  // Without interference: exactly the free schedule on both engines.
  prof.interference_kernel_slowdown = 1;
  const SyncPlan free_plan = make_plan("allreduce", request(net, prof, 2, 100, kBatch, 3));
  CHECK(AnalyticEngine().run(free_plan, {}).iteration_s == Approx(free_s).epsilon(1e-9));
  CHECK(sim::SimGridEngine().run(free_plan, {}).iteration_s == Approx(free_s).epsilon(1e-6));
}

TEST_CASE("a collective's launch is not its kernel: the overlap counts from the launch's end",
          "[interference][launch]") {
  const Network net = two_fc_net();
  Profile prof = flat_profile();
  prof.interference_kernel_slowdown = 2;
  prof.collective_launch_s = 0.001;
  const SyncPlan plan = make_plan("allreduce", request(net, prof, 2, 100, kBatch, 3));
  // fc2's collective: launch 1 ms, then kRing under fc1's backward (2.1 ms): overlapped kRing.
  const double expected = 2 * kLayer + 0.001 + kRing + kRing * (1 - 1.0 / 2);
  CHECK(AnalyticEngine().run(plan, {}).iteration_s == Approx(expected).epsilon(1e-9));
  CHECK(sim::SimGridEngine().run(plan, {}).iteration_s == Approx(expected).epsilon(1e-6));
}

TEST_CASE("kernels slow an overlapped GPU-to-GPU transfer, by hand, on every engine", "[interference][engines][live]") {
  const Network net = two_fc_net();
  Profile prof = flat_profile();
  prof.interference_comm_slowdown = 2;
  PlanRequest r = request(net, prof, 2, 100, kBatch, 3);
  r.cluster.gpus_per_node = 2;
  const SyncPlan plan = make_plan("wfbp", r);
  // fc2's gather to the leader (B at 20 GB/s: 0.42 ms) runs under fc1's backward (2.1 ms,
  // the GPUs' own kernels): at half its rate, it takes twice as long.
  const double gather_s = kBytes / prof.d2d_bytes_per_s;
  RunOptions opt;
  opt.timeline = true;
  const Result a = AnalyticEngine().run(plan, opt);
  const Result s = sim::SimGridEngine().run(plan, opt);
  const int fc2 = 1;
  CHECK(slice_s(a, Step::gather, fc2) == Approx(2 * gather_s).epsilon(1e-9));
  CHECK(slice_s(s, Step::gather, fc2) == Approx(2 * gather_s).epsilon(1e-6));
  // fc1's gather comes after the last kernel: at full rate.
  CHECK(slice_s(a, Step::gather, 0) == Approx(gather_s).epsilon(1e-9));
  CHECK(slice_s(s, Step::gather, 0) == Approx(gather_s).epsilon(1e-6));
  CHECK(s.iteration_s == Approx(a.iteration_s).epsilon(1e-6));
  // Live: the gather is on the emulated GPU-to-GPU path, slowed while kernels are pending.
  live::LiveOptions o;
  o.launch.netns = false;
  const Result l = live::LiveEngine(o).run(plan, opt);
  CHECK(slice_s(l, Step::gather, fc2) >= 2 * gather_s * 0.95);
  // Without it, at full rate.
  prof.interference_comm_slowdown = 1;
  const Result free_run = AnalyticEngine().run(make_plan("wfbp", r), opt);
  CHECK(slice_s(free_run, Step::gather, fc2) == Approx(gather_s).epsilon(1e-9));
}

TEST_CASE("interference: the analytic engine's one-pass schedule agrees with SimGrid on overlapping schedules",
          "[interference][engines]") {
  const Network net = small_cnn();
  Profile prof = flat_profile();
  prof.interference_kernel_slowdown = 1.035;
  prof.interference_comm_slowdown = 3.2;
  for (const std::string strategy : {"allreduce", "hier_allreduce", "tree_allreduce", "wfbp"})
    for (int gpus : {1, 4})
      for (double gbps : {10.0, 100.0}) {
        INFO(strategy << " " << gpus << " GPUs a node, " << gbps << " Gbit/s");
        PlanRequest r = request(net, prof, 4, gbps, 32, 4);
        r.cluster.gpus_per_node = gpus;
        const SyncPlan plan = make_plan(strategy, r);
        const Result a = AnalyticEngine().run(plan, {});
        const Result s = sim::SimGridEngine().run(plan, {});
        // The same mechanism both ways; the engines' other differences (shared links
        // against served in turn) stay what they are without it.
        Profile free_prof = prof;
        free_prof.interference_kernel_slowdown = free_prof.interference_comm_slowdown = 1;
        PlanRequest rf = r;
        rf.profile = &free_prof;
        const SyncPlan free_plan = make_plan(strategy, rf);
        const Result af = AnalyticEngine().run(free_plan, {});
        const Result sf = sim::SimGridEngine().run(free_plan, {});
        CHECK(a.iteration_s >= af.iteration_s);
        CHECK(s.iteration_s >= sf.iteration_s * (1 - 1e-9));
        CHECK(a.iteration_s / af.iteration_s == Approx(s.iteration_s / sf.iteration_s).epsilon(0.01));
      }
}

TEST_CASE("interference factors travel in plan JSON and are checked", "[interference][plan]") {
  const Network net = two_fc_net();
  Profile prof = flat_profile();
  prof.interference_kernel_slowdown = 1.04;
  prof.interference_comm_slowdown = 3.6;
  const SyncPlan plan = make_plan("allreduce", request(net, prof, 2, 100, kBatch, 2));
  const SyncPlan back = plan_from_json(plan_to_json(plan), "test");
  CHECK(back.rates.interference_kernel_slowdown == 1.04);
  CHECK(back.rates.interference_comm_slowdown == 3.6);
  nlohmann::json j = plan_to_json(plan);
  j["rates"]["interference_kernel_slowdown"] = 0.5;
  CHECK_THROWS_WITH(plan_from_json(j, "p.json"),
                    Catch::Contains("rates.interference_kernel_slowdown") && Catch::Contains("[1, 100]"));
  // Which tasks run communication kernels: collectives and the GPU-to-GPU path, not PCIe
  // copies or flows to shards.
  int comm = 0;
  for (const Task& t : plan.tasks) comm += runs_comm_kernel(t);
  CHECK(comm == 2);
}

TEST_CASE("the device sheets' interference factors are the medians of the H200 recording they cite",
          "[interference][profile]") {
  std::ifstream in(std::string(POSSIM_SOURCE_DIR) + "/traces/gpu/h200_2026-11-27/call2/interference.json");
  const nlohmann::json rec = nlohmann::json::parse(in);
  // The rows the sheets name: a GEMM beside the reduce-copy kernel on 8-32 CTAs, covered.
  std::vector<double> kernel, comm;
  for (const auto& c : rec.at("cases"))
    if (c.at("other").get<std::string>().rfind("reduce_copy", 0) == 0 && c.at("covered").get<bool>() &&
        c.at("ctas").get<int>() <= 32) {
      kernel.push_back(c.at("gemm_slowdown").get<double>());
      comm.push_back(c.at("other_slowdown").get<double>());
    }
  REQUIRE(kernel.size() == 6);
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  for (const char* gpu : {"v100", "a100", "h100", "h200"}) {
    INFO(gpu);
    const DeviceSheet d = load_device_sheet(gpu);
    REQUIRE(d.interference_kernel_slowdown);
    REQUIRE(d.interference_comm_slowdown);
    CHECK(d.interference_kernel_slowdown->value == Approx(median(kernel)).margin(5e-4));
    CHECK(d.interference_comm_slowdown->value == Approx(median(comm)).margin(5e-4));
    CHECK(d.interference_kernel_slowdown->source.find("call2/interference.json") != std::string::npos);
    // A profile derived from the sheet carries them; the Titan X's cluster has none.
    const Profile p = load_profile(gpu);
    CHECK(p.interference_kernel_slowdown == d.interference_kernel_slowdown->value);
    CHECK(p.interference_comm_slowdown == d.interference_comm_slowdown->value);
  }
  CHECK(load_profile("titanx_maxwell").interference_kernel_slowdown == 1);
  CHECK(load_profile("k80").interference_kernel_slowdown == 1);
}

TEST_CASE("interference: the one-pass schedule is the fixed point of fluid passes on every today scenario",
          "[interference][analytic]") {
  // One more fluid pass (each kernel and GPU-to-GPU transfer slowed where the schedule has
  // the other kind in flight) moves no instance: the event-driven schedule is
  // self-consistent where kernels, collectives and transfers overlap.
  int checked = 0, overlapped = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::string(POSSIM_SOURCE_DIR) + "/scenarios/today")) {
    if (f.path().extension() != ".json") continue;
    const Scenario s = load_scenario(f.path().string());
    for (const SweepPoint& p : sweep_points(s)) {
      if (p.nodes > 32) continue;
      INFO(f.path().filename().string() << " " << p.strategy << " " << p.nodes << " nodes " << p.nic_gbps
                                        << " Gbit/s");
      const SyncPlan plan = make_plan(p.strategy, plan_request(s, p));
      REQUIRE(plan.rates.interferes());
      const double gap = interference_fixed_point_gap(plan);
      INFO("gap " << gap * 1e12 << "e-12");
      // A fraction of the schedule: rounding over thousands of events reaches 1.5e-12 (H100's
      // fitted compute moved its event times); a pass that moved an instance would be far above.
      CHECK(gap <= 1e-11);
      ++checked;
      overlapped += std::any_of(plan.tasks.begin(), plan.tasks.end(), runs_comm_kernel);
    }
  }
  CHECK(checked > 100);
  CHECK(overlapped > 50);
}
