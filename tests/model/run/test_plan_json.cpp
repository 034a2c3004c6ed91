// Plans as JSON (model/run/plan_json.hpp): every strategy's plan survives the round trip
// exactly and runs the same on every engine; the hand-written golden plans in tests/golden/
// run on every predicting engine in the time their comments work out by hand; a plan file
// that is not one is an InputError naming the field; possim plan-dump and run-plan agree
// with possim run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "support/fixtures.hpp"
#include "model/input/json_check.hpp"
#include "model/run/plan_json.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/result_io.hpp"
#include "model/strategies/strategy.hpp"
#include "support/run_possim.hpp"

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

namespace {

// A golden plan's expectation (NAME.expect.json beside NAME.plan.json), as SimGrid's .tesh
// files hold their examples' output.
struct Expected {
  double iteration_s = 0;
  struct Event {
    std::string step;
    int worker = 0;
    double start_s = 0, duration_s = 0;
  };
  std::vector<Event> timeline;
};

Expected expected(const std::string& name) {
  const nlohmann::json j = nlohmann::json::parse(test::slurp(kGolden / (name + ".expect.json")));
  Expected e;
  e.iteration_s = j.at("iteration_s");
  for (const auto& ev : j.at("timeline"))
    e.timeline.push_back({ev.at("step"), ev.at("worker"), ev.at("start_s"), ev.at("duration_s")});
  return e;
}

std::vector<std::string> golden_names() {
  std::vector<std::string> names;
  for (const auto& f : fs::directory_iterator(kGolden)) {
    const std::string n = f.path().filename().string();
    const std::string suffix = ".plan.json";
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
      names.push_back(n.substr(0, n.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("golden plans: each expectation is the hand calculation from the plan's own numbers", "[plan_json][golden]") {
  REQUIRE(golden_names() == std::vector<std::string>{"cpu_optimizer", "serial_copies", "two_node_ps", "two_node_ring"});
  {  // one node: the update applied on the host CPU between the two copies, bytes at the apply rate
    const SyncPlan p = load_plan((kGolden / "cpu_optimizer.plan.json").string());
    REQUIRE(p.tasks[3].resource == Resource::host_cpu);
    const auto copy = [&](const Task& t) { return p.rates.pcie_latency_s + t.bytes / p.rates.pcie_bytes_per_s; };
    const double apply = p.tasks[3].bytes / p.rates.server_apply_bytes_per_s;
    const Expected e = expected("cpu_optimizer");
    CHECK(e.iteration_s == Approx(p.tasks[0].duration_s + p.tasks[1].duration_s + copy(p.tasks[2]) + apply +
                                  copy(p.tasks[4])).epsilon(1e-12));
    CHECK(e.timeline[3].duration_s == Approx(apply).epsilon(1e-12));
  }
  {  // one node, nothing shared: forward, backward, two copies of PCIe latency + bytes / rate
    const SyncPlan p = load_plan((kGolden / "serial_copies.plan.json").string());
    const auto copy = [&](const Task& t) { return p.rates.pcie_latency_s + t.bytes / p.rates.pcie_bytes_per_s; };
    const double f = p.tasks[0].duration_s, b = p.tasks[1].duration_s;
    CHECK(expected("serial_copies").iteration_s == Approx(f + b + copy(p.tasks[2]) + copy(p.tasks[3])).epsilon(1e-12));
  }
  {  // ring all-reduce of B over P nodes: 2(P-1) rounds of B/P, every node sending at once
    const SyncPlan p = load_plan((kGolden / "two_node_ring.plan.json").string());
    const double P = p.workers, B = p.tasks[2].bytes;
    const double ring = 2 * (P - 1) * (p.rates.latency_s + B / P / p.nic_bytes_per_s());
    const Expected e = expected("two_node_ring");
    CHECK(e.iteration_s == Approx(p.tasks[0].duration_s + p.tasks[1].duration_s + ring).epsilon(1e-12));
    CHECK(e.timeline.back().duration_s == Approx(ring).epsilon(1e-12));
  }
  {  // PS over P colocated shards: each node sends (and receives) the P-1 slices not its own;
     // each shard applies P workers' updates of its slice
    const SyncPlan p = load_plan((kGolden / "two_node_ps.plan.json").string());
    const double P = p.workers, slice = p.tensors[0].slices[0].bytes;
    const double flow = p.rates.latency_s + (P - 1) * slice / p.nic_bytes_per_s();
    const double apply = P * slice / p.rates.server_apply_bytes_per_s;
    const Expected e = expected("two_node_ps");
    CHECK(e.iteration_s == Approx(p.tasks[0].duration_s + p.tasks[1].duration_s + flow + apply + flow).epsilon(1e-12));
    CHECK(e.timeline[3].duration_s == Approx(apply).epsilon(1e-12));
  }
}

TEST_CASE("golden plans: every predicting engine reproduces each plan's iteration and timeline", "[plan_json][golden]") {
  for (const std::string& name : golden_names()) {
    const SyncPlan p = load_plan((kGolden / (name + ".plan.json")).string());
    const Expected e = expected(name);
    for (const std::string& engine : predicting_engines()) {
      INFO(name << " on " << engine);
      RunOptions opt;
      opt.timeline = true;
      const Result r = make_engine(engine, EngineRequest{})->run(p, opt);
      CHECK(r.iteration_s == Approx(e.iteration_s).epsilon(1e-9));
      const double start = r.iteration_end_s.at(0);  // the second iteration's
      for (const Expected::Event& x : e.timeline) {
        INFO(x.step << " of worker " << x.worker);
        const bool found = std::any_of(r.timeline.begin(), r.timeline.end(), [&](const TimelineEvent& ev) {
          return ev.iteration == 1 && ev.category == x.step && ev.worker == x.worker &&
                 std::abs(ev.start_s - start - x.start_s) < 1e-9 && std::abs(ev.duration_s - x.duration_s) < 1e-9;
        });
        CHECK(found);
      }
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
