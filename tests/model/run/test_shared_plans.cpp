// A sweep on the analytic engine builds one plan for the points that differ in the NIC's line
// rate alone and runs them on it in turn (model/run/sweep.cpp, plan_runs). That holds only
// while no strategy reads the line rate anywhere but the plan's cluster: held here plan by
// plan (every strategy, both placements, several GPUs a node, TCP and RDMA, stragglers, the
// plan set to each rate written out as the plan built at that rate) and on the results
// (run_sweep against run_point, point by point, bit for bit).
#include <catch2/catch.hpp>

#include <string>

#include "model/analytic/analytic_engine.hpp"
#include "model/input/scenario.hpp"
#include "model/input/strategy_names.hpp"
#include "model/run/plan_json.hpp"
#include "model/run/result_io.hpp"
#include "model/run/sweep.hpp"

using namespace possim;

namespace {

// Every strategy on `model`, 1-16 nodes at 1, 10, 25 and 100 Gbit/s; `cluster` and `options`
// are added to the scenario's sections of those names.
Scenario scenario(const std::string& model, const std::string& profile, const std::string& cluster,
                  const std::string& options) {
  std::string strategies;
  for (const auto& n : strategy_names()) strategies += (strategies.empty() ? "\"" : ", \"") + n + "\"";
  const std::string text = R"({"name": "shared", "model": ")" + model + R"(", "batch_per_gpu": 32,
    "profile": ")" + profile + R"(", "iterations": 3, "seed": 7, "strategies": [)" + strategies + R"(],
    "cluster": {"nodes": [1, 4, 16], "nic_gbps": [1, 10, 25, 100], "latency_s": 20e-6)" + cluster + R"(},
    "strategy_options": {"kv_pair_bytes": 1048576)" + options + "}}";
  return parse_scenario(text, "shared.json", ".");
}

struct Case {
  const char* what;
  const char* model;
  const char* profile;
  const char* cluster;
  const char* options;
};

const Case kCases[] = {
    {"colocated shards, TCP", "googlenet", "titanx_maxwell", "", ""},
    {"two dedicated servers, 4 GPUs a node", "vgg19", "titanx_maxwell",
     R"(, "gpus_per_node": 4, "servers": {"shards": 2, "placement": "dedicated"})", ""},
    {"RDMA, 8 GPUs and 8 NICs a node, buckets", "resnet50", "h100",
     R"(, "gpus_per_node": 8, "nics_per_node": 8, "transport": "rdma")", R"(, "bucket_bytes": 26214400)"},
    {"log-normal stragglers, the slowest dropped", "alexnet", "titanx_maxwell", "",
     R"(, "stragglers": {"kind": "lognormal", "sigma": 0.2, "drop_after": 1.5})"},
    {"SSP, staleness 2", "alexnet", "titanx_maxwell", "", R"(, "consistency": "ssp", "staleness": 2)"},
};

}  // namespace

TEST_CASE("a plan set to another line rate is the plan built at that rate, for every strategy",
          "[sweep][shared-plans]") {
  for (const Case& c : kCases) {
    const Scenario s = scenario(c.model, c.profile, c.cluster, c.options);
    for (const SweepPoint& p : sweep_points(s)) {
      INFO(c.what << ": " << p.strategy << " at " << p.nodes << " nodes, " << p.nic_gbps << " Gbit/s");
      const SweepPoint other{p.strategy, p.nodes, p.nic_gbps == 1 ? 100.0 : 1.0};
      SyncPlan shared = make_plan(p.strategy, plan_request(s, other));
      shared.cluster.nic_gbps = p.nic_gbps;
      const SyncPlan built = make_plan(p.strategy, plan_request(s, p));
      REQUIRE(plan_to_json(shared).dump() == plan_to_json(built).dump());
    }
  }
}

TEST_CASE("a sweep on shared plans gives each point's result bit for bit", "[sweep][shared-plans]") {
  const AnalyticEngine engine;
  REQUIRE(engine.points_are_cheap());
  for (const Case& c : kCases) {
    const Scenario s = scenario(c.model, c.profile, c.cluster, c.options);
    const double single = single_gpu_images_per_s(s, engine);
    const auto points = sweep_points(s);
    for (int jobs : {1, 2}) {
      const std::vector<Result> swept = run_sweep(s, engine, jobs);
      REQUIRE(swept.size() == points.size());
      for (std::size_t i = 0; i < points.size(); ++i) {
        INFO(c.what << ", jobs " << jobs << ": " << points[i].strategy << " at " << points[i].nodes << " nodes, "
                    << points[i].nic_gbps << " Gbit/s");
        CHECK(result_to_json(swept[i]).dump() == result_to_json(run_point(s, points[i], engine, single)).dump());
      }
    }
  }
}

TEST_CASE("strategies that time their candidate schemes get a plan per point, and the same results",
          "[sweep][shared-plans]") {
  // Under "timed" Poseidon picks each layer's scheme by the plan's time at this rate: at 1
  // Gbit/s and at 100 its plans differ (checked first), so a shared plan would show in the
  // results.
  const Scenario s = scenario("vgg19", "titanx_maxwell", "", R"(, "best_scheme": "timed")");
  const AnalyticEngine engine;
  const double single = single_gpu_images_per_s(s, engine);
  const auto points = sweep_points(s);
  const SweepPoint slow{"poseidon", 16, 1}, fast{"poseidon", 16, 100};
  SyncPlan shared = make_plan("poseidon", plan_request(s, slow));
  shared.cluster.nic_gbps = fast.nic_gbps;
  CHECK(plan_to_json(shared).dump() != plan_to_json(make_plan("poseidon", plan_request(s, fast))).dump());
  const std::vector<Result> swept = run_sweep(s, engine, 1);
  for (std::size_t i = 0; i < points.size(); ++i) {
    INFO(points[i].strategy << " at " << points[i].nodes << " nodes, " << points[i].nic_gbps << " Gbit/s");
    CHECK(result_to_json(swept[i]).dump() == result_to_json(run_point(s, points[i], engine, single)).dump());
  }
}
