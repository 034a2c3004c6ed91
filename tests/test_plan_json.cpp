// Plans as JSON (model/run/plan_json.hpp): every strategy's plan survives the round trip
// exactly and runs the same on every engine; the hand-written golden plans in tests/golden/
// run on every predicting engine in the time their comments work out by hand; a plan file
// that is not one is an InputError naming the field; possim plan-dump and run-plan agree
// with possim run.
#include <catch2/catch.hpp>

#include <filesystem>

#include "fixtures.hpp"
#include "model/input/json_check.hpp"
#include "model/run/plan_json.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/result_io.hpp"
#include "model/strategies/strategy.hpp"
#include "run_possim.hpp"

using namespace possim;
using test::input_error;
namespace fs = std::filesystem;

namespace {

const fs::path kGolden = fs::path(POSSIM_TESTS_DIR) / "golden";

SyncPlan round_trip(const SyncPlan& p) {
  const std::string text = plan_to_json(p).dump();
  return plan_from_json(nlohmann::json::parse(text), "plan.json");
}

}  // namespace

TEST_CASE("plan JSON: every strategy's plan survives the round trip and runs the same on every predicting engine",
          "[plan_json]") {
  const Network net = test::small_cnn();
  const Profile prof = test::flat_profile();
  for (const std::string& s : strategy_names())
    for (const ServerPlacement placement : {ServerPlacement::colocated, ServerPlacement::dedicated}) {
      INFO(s << (placement == ServerPlacement::dedicated ? ", dedicated servers" : ", colocated"));
      PlanRequest r = test::request(net, prof, 3, 10, 32, 3);
      r.cluster.gpus_per_node = 2;
      r.cluster.placement = placement;
      r.cluster.server_shards = placement == ServerPlacement::dedicated ? 2 : 3;
      r.options.stragglers.kind = "lognormal";
      r.options.stragglers.sigma = 0.2;
      const SyncPlan plan = make_plan(s, r);
      const SyncPlan back = round_trip(plan);
      CHECK(plan_to_json(back) == plan_to_json(plan));
      for (const std::string& engine : predicting_engines()) {
        const auto e = make_engine(engine, EngineRequest{});
        CHECK(result_to_json(e->run(back, {})) == result_to_json(e->run(plan, {})));
      }
    }
}

TEST_CASE("golden plans: every predicting engine runs each in the time worked out by hand", "[plan_json][golden]") {
  // serial_copies: one node, nothing shared: forward + backward + two copies, each
  // PCIe latency + bytes / PCIe rate.
  {
    const SyncPlan p = load_plan((kGolden / "serial_copies.plan.json").string());
    const Task &f = p.tasks[0], &b = p.tasks[1], &d2h = p.tasks[2], &h2d = p.tasks[3];
    const double copy = [&](const Task& t) { return p.rates.pcie_latency_s + t.bytes / p.rates.pcie_bytes_per_s; }(d2h) +
                        (p.rates.pcie_latency_s + h2d.bytes / p.rates.pcie_bytes_per_s);
    const double expected = f.duration_s + b.duration_s + copy;
    CHECK(expected == Approx(0.03202).epsilon(1e-12));  // the file's comment
    for (const std::string& engine : predicting_engines()) {
      INFO(engine);
      CHECK(make_engine(engine, EngineRequest{})->run(p, {}).iteration_s == Approx(expected).epsilon(1e-9));
    }
  }
  // two_node_ring: a ring all-reduce of B bytes over P = 2 nodes is 2(P-1) rounds, each
  // node sending B/P at once (full duplex): each round latency + (B/P) / NIC rate.
  {
    const SyncPlan p = load_plan((kGolden / "two_node_ring.plan.json").string());
    const double P = p.workers, B = p.tasks[2].bytes;
    const double ring = 2 * (P - 1) * (p.rates.latency_s + B / P / p.nic_bytes_per_s());
    const double expected = p.tasks[0].duration_s + p.tasks[1].duration_s + ring;
    CHECK(expected == Approx(0.0402).epsilon(1e-12));  // the file's comment
    for (const std::string& engine : predicting_engines()) {
      INFO(engine);
      CHECK(make_engine(engine, EngineRequest{})->run(p, {}).iteration_s == Approx(expected).epsilon(1e-9));
    }
  }
}

TEST_CASE("plan JSON: a file that is not a plan is one InputError naming the field", "[plan_json]") {
  const nlohmann::json good = nlohmann::json::parse(test::slurp(kGolden / "two_node_ring.plan.json"));
  const auto error = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = good;
    edit(j);
    return input_error([&] { plan_from_json(j, "p.json"); });
  };
  CHECK(error([](auto&) {}) == "(no InputError thrown)");
  CHECK(error([](auto& j) { j["tasks"][0]["step"] = "jump"; }).find("p.json: tasks[0].step") != std::string::npos);
  CHECK(error([](auto& j) { j["tasks"][0]["deps"] = {{99, 0}}; }).find("tasks[0].deps[0][0]") != std::string::npos);
  CHECK(error([](auto& j) { j["tasks"][0]["deps"] = {{3, 0}}; }).find("not earlier") != std::string::npos);
  CHECK(error([](auto& j) { j["tasks"][0]["resource"] = "pcie_d2h"; }).find("step forward does not run on pcie_d2h") !=
        std::string::npos);
  CHECK(error([](auto& j) { j["tasks"][2].erase("pattern"); }).find("flow pattern") != std::string::npos);
  CHECK(error([](auto& j) { j["slowdown"] = {{1, 1}}; }).find("slowdown: has 1 iterations") != std::string::npos);
  CHECK(error([](auto& j) { j["cluster"]["nodes"] = 1e9; }).find("cluster.nodes") != std::string::npos);
  CHECK(error([](auto& j) { j["strategy"] = "mine"; }).find("'mine' is not a strategy") != std::string::npos);
  CHECK(error([](auto& j) { j["format"] = "possim.plan.v0"; }).find("format") != std::string::npos);
  CHECK(error([](auto& j) { j["rates"]["pcie_bytes_per_s"] = 0; }).find("rates.pcie_bytes_per_s") != std::string::npos);
}

TEST_CASE("possim plan-dump and run-plan: the plan possim run runs, and the same iteration", "[plan_json][cli]") {
  const fs::path dir = fs::temp_directory_path() / ("possim_plan_json_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string scenario = (fs::path(POSSIM_TESTS_DIR).parent_path() / "scenarios" / "vgg19_10gbe.json").string();
  REQUIRE(test::run_possim("plan-dump '" + scenario + "' --strategy wfbp --nodes 2 --gbps 10 -o plan.json", dir).status == 0);
  const test::Output o = test::run_possim("run-plan plan.json --engine analytic --json r.json", dir);
  REQUIRE(o.status == 0);
  const Result from_plan = result_from_json(nlohmann::json::parse(test::slurp(dir / "r.json")));
  REQUIRE(test::run_possim("run '" + scenario + "' --engine analytic --out run -q", dir).status == 0);
  const nlohmann::json run = nlohmann::json::parse(test::slurp(dir / "run" / "results.json"));
  bool found = false;
  for (const auto& j : run["results"]) {
    const Result r = result_from_json(j);
    if (r.strategy == "wfbp" && r.cluster.nodes == 2 && r.cluster.nic_gbps == 10) {
      found = true;
      CHECK(r.iteration_s == from_plan.iteration_s);
    }
  }
  CHECK(found);
  // A bad plan file: one line, exit 2.
  test::write_file(dir / "bad.json", R"({"format": "possim.plan.v1", "tasks": 3})");
  const test::Output bad = test::run_possim("run-plan bad.json --engine analytic", dir);
  CHECK(bad.status == 2);
  CHECK(test::count_lines(bad.err) == 1);
  CHECK(bad.err.find("bad.json") != std::string::npos);
  fs::remove_all(dir);
}
