// Software stacks: a profile's per-stack software parameters, how a scenario picks them,
// the mechanisms they switch on (each checked against its formula), and measurements
// given as images/s or speedups.
#include <catch2/catch.hpp>
#include <cmath>

#include "model/input/measurements.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/run/breakdown.hpp"
#include "sim/simgrid_engine.hpp"
#include "model/input/error.hpp"
#include "model/input/profile.hpp"
#include "model/input/scenario.hpp"
#include "model/strategies/strategy.hpp"
#include "model/workload/zoo.hpp"

using namespace possim;
using Approx = Catch::Detail::Approx;

namespace {

const char* kProfile = R"({
  "format": "possim-profile-1", "name": "two_stacks",
  "peak_flops_per_s": 1e13, "kind_efficiency": {"conv": 0.5, "fc": 0.5},
  "throughput": [
    {"model": "alexnet", "batch": 32, "images_per_s": 100, "framework": "caffe", "source": "a"},
    {"model": "alexnet", "batch": 32, "images_per_s": 200, "framework": "tensorflow", "source": "b"}],
  "pcie_bytes_per_s": 10e9, "d2d_bytes_per_s": 10e9, "tcp_goodput": 0.9,
  "server_apply_bytes_per_s": 2e9, "rebuild_flops_per_s": 5e12, "quantize_bytes_per_s": 1e11,
  "stacks": {
    "fast": {"framework": "tensorflow", "server_apply_bytes_per_s": 4e9},
    "naive": {"framework": "caffe", "client_pass_bytes_per_s": 5e9, "runtime_copy_bytes_per_s": 20e9,
              "server_update_bytes_per_s": 1e9, "sources": {"client_pass_bytes_per_s": "why"}},
    "late": {"sync_after_backward": true},
    "clocked": {"framework": "caffe", "step_sync_s": 0.05}
  },
  "default_stacks": {"ps": "naive", "wfbp": "fast"}
})";

PlanRequest request(const Network& net, const Profile& p, int nodes) {
  PlanRequest r;
  r.net = &net;
  r.profile = &p;
  r.cluster.nodes = nodes;
  r.cluster.server_shards = nodes;
  r.cluster.nic_gbps = 10;
  r.batch_per_gpu = 32;
  return r;
}

double iteration_of_layers(const Profile& p, const Network& net) {
  double s = 0;
  for (const auto& t : p.layer_times(net, 32)) s += t.forward_s + t.backward_s;
  return s;
}

}  // namespace

TEST_CASE("a stack overrides software parameters and picks its framework's throughput",
          "[stacks]") {
  const Profile p = parse_profile(kProfile, "two_stacks.json");
  const Network net = make_zoo_network("alexnet");
  REQUIRE(p.stacks.size() == 4);
  CHECK(p.stack_for("ps") == "naive");
  CHECK(p.stack_for("poseidon").empty());
  CHECK(p.stack_for("poseidon", "fast") == "fast");

  const Profile fast = p.for_strategy("wfbp");
  CHECK(fast.stack == "fast");
  CHECK(fast.server_apply_bytes_per_s == 4e9);
  CHECK(fast.tcp_goodput == p.tcp_goodput);  // physics is shared
  // Each framework's layers take its own measured iteration (no per_iteration_s here).
  CHECK(iteration_of_layers(fast, net) == Approx(32.0 / 200));
  CHECK(iteration_of_layers(p.for_strategy("ps"), net) == Approx(32.0 / 100));
  // No stack: the nearest point of any framework (the first of equals).
  CHECK(iteration_of_layers(p, net) == Approx(32.0 / 100));

  CHECK_THROWS_AS(p.with_stack("nope"), InputError);
  CHECK_THROWS_WITH(parse_profile(R"({"format": "possim-profile-1", "name": "x",
      "peak_flops_per_s": 1e13, "kind_efficiency": {"conv": 0.5, "fc": 0.5},
      "pcie_bytes_per_s": 1e10, "d2d_bytes_per_s": 1e10, "tcp_goodput": 0.9,
      "server_apply_bytes_per_s": 2e9, "rebuild_flops_per_s": 5e12, "quantize_bytes_per_s": 1e11,
      "stacks": {"a": {"server_aply_bytes_per_s": 1}}})",
                                  "x.json"),
                    Catch::Contains("stacks.a.server_aply_bytes_per_s") &&
                        Catch::Contains("did you mean"));
  CHECK_THROWS_WITH(parse_profile(R"({"format": "possim-profile-1", "name": "x",
      "peak_flops_per_s": 1e13, "kind_efficiency": {"conv": 0.5, "fc": 0.5},
      "pcie_bytes_per_s": 1e10, "d2d_bytes_per_s": 1e10, "tcp_goodput": 0.9,
      "server_apply_bytes_per_s": 2e9, "rebuild_flops_per_s": 5e12, "quantize_bytes_per_s": 1e11,
      "default_stacks": {"ps": "missing"}})",
                                  "x.json"),
                    Catch::Contains("default_stacks.ps") && Catch::Contains("no stack named"));
}

TEST_CASE("stack mechanisms set the plan's rates by their formulas", "[stacks]") {
  const Profile p = parse_profile(kProfile, "two_stacks.json");
  const Network net = make_zoo_network("alexnet");
  const Profile naive = p.for_strategy("ps");
  for (int nodes : {1, 4}) {
    const SyncPlan plan = make_plan("ps", request(net, naive, nodes));
    // Copy path: PCIe, the runtime's copy and one client pass per shard, in series.
    const double copy_s_per_byte = 1 / 10e9 + 1 / 20e9 + nodes / 5e9;
    CHECK(plan.rates.pcie_bytes_per_s == Approx(1 / copy_s_per_byte));
    // Server: N workers' updates taken in at the apply rate, one optimizer update: per
    // worker's byte 1/A + 1/(N U).
    CHECK(plan.rates.server_apply_bytes_per_s == Approx(1 / (1 / 2e9 + 1 / (nodes * 1e9))));
  }
  // Without those mechanisms the rates are the profile's own.
  const SyncPlan plain = make_plan("wfbp", request(net, p.for_strategy("wfbp"), 4));
  CHECK(plain.rates.pcie_bytes_per_s == 10e9);
  CHECK(plain.rates.server_apply_bytes_per_s == 4e9);
}

TEST_CASE("a stack's step synchronisation round ends every BSP step, in every engine", "[stacks]") {
  const Profile p = parse_profile(kProfile, "two_stacks.json");
  const Network net = make_zoo_network("alexnet");
  const Profile clocked = p.with_stack("clocked");
  REQUIRE(clocked.step_sync_s == 0.05);
  for (const std::string strategy : {"ps", "wfbp", "allreduce", "tf_stock"})
    for (int nodes : {1, 4}) {
      INFO(strategy << " on " << nodes << " nodes");
      PlanRequest r = request(net, clocked, nodes);
      r.iterations = 4;
      const SyncPlan with = make_plan(strategy, r);
      int rounds = 0;
      for (const Task& t : with.tasks)
        if (t.resource == Resource::none && t.duration_s > 0) {
          ++rounds;
          CHECK(t.duration_s == 0.05);
          CHECK(t.scope == Scope::cluster);
        }
      CHECK(rounds == 1);  // one round per step, on the step's barrier
      // The same plan without the round: each engine's step is longer by exactly the
      // round, which the breakdown books as barrier wait.
      SyncPlan without = with;
      for (Task& t : without.tasks)
        if (t.resource == Resource::none) t.duration_s = 0;
      const Result a1 = AnalyticEngine().run(with, {}), a0 = AnalyticEngine().run(without, {});
      const Result s1 = sim::SimGridEngine().run(with, {}), s0 = sim::SimGridEngine().run(without, {});
      CHECK(a1.iteration_s - a0.iteration_s == Approx(0.05).margin(1e-9));
      CHECK(s1.iteration_s - s0.iteration_s == Approx(0.05).margin(1e-6));
      CHECK(s1.breakdown[TimeShare::barrier_wait] - s0.breakdown[TimeShare::barrier_wait] ==
            Approx(0.05).margin(1e-6));
      CHECK(s1.breakdown.total() == Approx(s1.iteration_s).epsilon(1e-6));
    }
  // SSP has no step barrier: no worker waits for the round.
  PlanRequest r = request(net, clocked, 4);
  r.options.consistency = Consistency::ssp;
  r.options.staleness = 1;
  for (const Task& t : make_plan("ps", r).tasks) CHECK((t.duration_s == 0 || t.resource != Resource::none));
  // Read as a stack parameter: seconds in [0, 1].
  std::string bad = kProfile;
  const std::string round = "\"step_sync_s\": 0.05";
  bad.replace(bad.find(round), round.size(), "\"step_sync_s\": 5");
  CHECK_THROWS_WITH(parse_profile(bad, "b.json"), Catch::Contains("stacks.clocked.step_sync_s"));
}

TEST_CASE("a stack that syncs after the whole backward pass delays every 1-bit quantization",
          "[stacks]") {
  const Profile p = parse_profile(kProfile, "two_stacks.json");
  const Network net = make_zoo_network("alexnet");
  const auto quantize_deps = [&](const Profile& prof) {
    const SyncPlan plan = make_plan("onebit", request(net, prof, 4));
    std::vector<int> on_layers;  // the layer of the backward task each quantize waits for
    for (const Task& t : plan.tasks)
      if (t.step == Step::quantize) on_layers.push_back(plan.tasks[t.deps.at(0).task].layer);
    return on_layers;
  };
  for (int l : quantize_deps(p.with_stack("late"))) CHECK(l == 0);  // b_0 is the last backward
  int overlapped = 0;
  for (int l : quantize_deps(p)) overlapped += l != 0;
  CHECK(overlapped > 0);  // by default each layer's sync starts after its own backward
}

TEST_CASE("a scenario picks a stack per strategy, and names what it does not know", "[stacks]") {
  const std::string base = R"({"model": "alexnet", "batch_per_gpu": 32,
    "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["ps", "wfbp"],
    "profile": "titanx_maxwell")";
  const Scenario s = parse_scenario(base + R"(, "stacks": {"wfbp": "poseidon_tf", "single": "tensorflow"}})",
                                    "s.json", ".");
  CHECK(s.profile_for("wfbp").stack == "poseidon_tf");
  CHECK(s.profile_for("ps").stack == s.profile.stack_for("ps"));
  CHECK(s.profile_for("single").framework == "tensorflow");
  CHECK_THROWS_WITH(parse_scenario(base + R"(, "stacks": {"wfbp": "poseidon_tv"}})", "s.json", "."),
                    Catch::Contains("s.json: stacks.wfbp") && Catch::Contains("poseidon_tf"));
  CHECK_THROWS_WITH(parse_scenario(base + R"(, "stacks": {"adam": "caffe"}})", "s.json", "."),
                    Catch::Contains("stacks.adam") && Catch::Contains("not among"));
}

TEST_CASE("measurements in images/s or as a speedup become iteration times", "[stacks][fit]") {
  using namespace possim;
  const MeasurementSet m = parse_measurements(
      "model,strategy,nodes,nic_gbps,batch,stack,iteration_s,images_per_s,speedup,reference_images_per_s\n"
      "alexnet,ps,1,40,32,,,20,,\n"
      "alexnet,poseidon,8,40,32,poseidon_caffe,,,6,25\n"
      "alexnet,wfbp,2,40,32,,0.5,,,\n",
      "m.csv", ".", 32);
  REQUIRE(m.points.size() == 3);
  CHECK(m.points[0].iteration_s == Approx(32.0 / 20));
  CHECK(m.points[0].measured_as == "images_per_s");
  CHECK(m.points[1].iteration_s == Approx(8 * 32.0 / (6 * 25)));
  CHECK(m.points[1].stack == "poseidon_caffe");
  CHECK(m.points[1].in_measured_unit(m.points[1].iteration_s) == Approx(6));
  CHECK(m.points[2].iteration_s == 0.5);
  CHECK_THROWS_WITH(parse_measurements("model,strategy,nodes,nic_gbps,speedup\nalexnet,ps,2,40,3\n",
                                       "m.csv", ".", 32),
                    Catch::Contains("m.csv:2: reference_images_per_s: missing"));
  CHECK_THROWS_WITH(parse_measurements("model,strategy,nodes,nic_gbps\nalexnet,ps,2,40\n", "m.csv",
                                       ".", 32),
                    Catch::Contains("no measurement column"));
  // possim's own results.csv: the other columns are ignored, batch_per_gpu is the batch.
  const MeasurementSet r = parse_measurements(
      "model,strategy,engine,nodes,gpus_per_node,nic_gbps,latency_s,server_shards,batch_per_gpu,"
      "iteration_s,images_per_s,speedup,scaling_efficiency\n"
      "alexnet,wfbp,simgrid,4,1,10,5e-05,4,64,0.25,1024,3.5,0.875\n",
      "results.csv", ".", 32);
  CHECK(r.points.at(0).batch == 64);
  CHECK(r.points.at(0).iteration_s == 0.25);
  CHECK(r.points.at(0).measured_as == "iteration_s");
}
