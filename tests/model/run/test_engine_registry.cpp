// The engine registry (model/run/engine_registry.hpp): every engine is made and selected by
// its registration; what the registry says an engine can do is what it does; and a new
// engine (this file's own) becomes selectable, readable in results files and owner of its
// scenario section by registering alone.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "support/fixtures.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/scenario.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/result_io.hpp"
#include "model/strategies/strategy.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using test::input_error;

namespace {

const char* kScenario = R"({"model": "googlenet", "batch_per_gpu": 32, "cluster": {"nodes": 2, "nic_gbps": 1},
                            "strategies": ["ps"])";

Scenario scenario(const std::string& more = "") { return parse_scenario(std::string(kScenario) + more + "}", "dir/s.json", "dir"); }

// The analytic engine under another name: an engine no other file knows of.
class Echo : public AnalyticEngine {
 public:
  const char* name() const override { return "echo"; }
  Result run(const SyncPlan& plan, const RunOptions& opt) const override {
    Result r = AnalyticEngine::run(plan, opt);
    r.engine = name();
    return r;
  }
};

struct Registered {
  Registered() {
    EngineInfo e;
    e.name = "echo";
    e.summary = "the analytic engine, renamed";
    e.capabilities.closed_form = true;
    e.capabilities.runs_sweeps = true;
    e.settings_section = "echo";
    e.check_settings = [](const nlohmann::json& v, const json_check::Reader& r) {
      r.object(v, "echo", "an object");
      r.only_known(v, "echo", {"loud"});
    };
    e.make = [](const EngineRequest&) { return std::make_unique<Echo>(); };
    e.caveat = [](const Scenario& s) { return s.engine_section("echo") ? "echo repeats the analytic engine" : ""; };
    register_engine(std::move(e));
  }
  ~Registered() { unregister_engine("echo"); }
};

SyncPlan small_plan(const std::string& strategy, int nodes) {
  static const Network net = test::small_cnn();
  static const Profile prof = test::flat_profile();
  return make_plan(strategy, test::request(net, prof, nodes, 10, 32, 3));
}

}  // namespace

TEST_CASE("engine registry: each built-in engine is made by its registration, under the name it registered",
          "[engines]") {
  const Scenario s = scenario();
  REQUIRE(registered_engines().size() >= 3);
  CHECK(default_engine() == registered_engines().front().name);
  for (const EngineInfo& e : registered_engines()) {
    INFO(e.name);
    EngineRequest q;
    q.scenario = &s;
    const auto engine = make_engine(e.name, q);
    CHECK(engine->name() == e.name);
    CHECK(engine->writes_results());
    CHECK(engine_summaries().find(e.name + " (" + e.summary + ")") != std::string::npos);
    CHECK(input_error([] { make_engine("nope", EngineRequest{}); }).find(e.name) != std::string::npos);
    // An engine that measures needs the scenario it runs; one whose ranks do not meet
    // refuses a coordinator.
    if (e.capabilities.measures)
      CHECK(input_error([&] { make_engine(e.name, EngineRequest{}); }).find("not available") != std::string::npos);
    if (!e.capabilities.meets_ranks) {
      q.coordinator = "127.0.0.1:7000";
      CHECK(input_error([&] { make_engine(e.name, q); }).find("--coordinator") != std::string::npos);
    }
  }
}

TEST_CASE("engine registry: each predicting engine does what its capabilities say", "[engines]") {
  const std::vector<std::string> predicting = predicting_engines();
  REQUIRE(predicting.size() >= 2);
  bool closed_seen = false;
  for (const std::string& name : predicting) {
    INFO(name);
    const EngineCapabilities caps = capabilities_of(name);
    CHECK_FALSE(caps.measures);
    CHECK((closed_seen && !caps.closed_form) == false);  // simulated contention first
    closed_seen = closed_seen || caps.closed_form;
    RunOptions opt;
    opt.timeline = true;
    const Result r = make_engine(name, EngineRequest{})->run(small_plan("ps", 4), opt);
    CHECK(r.engine == name);
    // Per-link statistics where, and only where, the registry says so.
    CHECK(!r.links.empty() == caps.per_link_stats);
    // A closed form shows one representative worker; a simulation every traced worker.
    std::set<int> workers;
    for (const TimelineEvent& ev : r.timeline)
      if (ev.worker >= 0) workers.insert(ev.worker);
    CHECK((workers.size() == 1) == caps.closed_form);
    // A folding engine gives the same prediction folded as in full.
    if (caps.reduces_symmetric) {
      EngineRequest on, off;
      on.reduce = "on";
      off.reduce = "off";
      const SyncPlan ring = small_plan("allreduce", 8);
      const double folded = make_engine(name, on)->run(ring, {}).iteration_s;
      const double full = make_engine(name, off)->run(ring, {}).iteration_s;
      CHECK(folded == Approx(full).epsilon(1e-9));
    }
  }
}

TEST_CASE("engine registry: a new engine is selectable, named in results files and owns its scenario section, "
          "by registering alone", "[engines]") {
  const std::string unknown = input_error([] { scenario(R"(, "echo": {"loud": true})"); });
  CHECK(unknown.find("echo") != std::string::npos);  // not yet an engine's section
  {
    const Registered registered;
    CHECK(engine_choices().find("echo") != std::string::npos);
    CHECK(predicting_engines().back() == "echo");  // closed form, after the simulation
    // Its section is accepted, kept as written and checked where it stands.
    const Scenario s = scenario(R"(, "echo": {"loud": true})");
    REQUIRE(s.engine_section("echo") != nullptr);
    CHECK(s.engine_section("echo")->at("loud") == true);
    CHECK(input_error([] { scenario(R"(, "echo": 3)"); }).find("dir/s.json: echo") != std::string::npos);
    CHECK(input_error([] { scenario(R"(, "echo": {"quiet": 1})"); }).find("echo.quiet") != std::string::npos);
    CHECK(find_engine("echo")->caveat(s) == "echo repeats the analytic engine");
    // Made and run through the registry; its results read back as possim's own.
    EngineRequest q;
    q.scenario = &s;
    const Result r = make_engine("echo", q)->run(small_plan("wfbp", 2), {});
    nlohmann::json j = result_to_json(r);
    CHECK(result_from_json(j).engine == "echo");
    // It records no links: a results file that says it did is not possim's.
    j["links"] = nlohmann::json::array({{{"link", "nic-0 tx"}, {"bytes_per_iteration", 1}, {"peak_utilization", 0.5},
                                         {"mean_utilization", 0.25}}});
    CHECK(input_error([&] { result_from_json(j); }).find("records none") != std::string::npos);
  }
  // Unregistered: gone from the choices, its results and its section refused again.
  CHECK(engine_choices().find("echo") == std::string::npos);
  CHECK(find_engine("echo") == nullptr);
  CHECK(input_error([] { scenario(R"(, "echo": {"loud": true})"); }) == unknown);
}

TEST_CASE("possim run: a cluster larger than one machine hosts for an engine that runs real processes is refused "
          "before any point runs", "[engines][cli]") {
  const auto dir = std::filesystem::temp_directory_path() / ("possim_engines_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const EngineInfo& e : registered_engines()) {
    if (e.capabilities.max_local_nodes == 0) continue;
    INFO(e.name);
    const int too_many = e.capabilities.max_local_nodes + 1;
    test::write_file(dir / "big.json", R"({"model": "googlenet", "batch_per_gpu": 32, "cluster": {"nodes": [2, )" +
                                           std::to_string(too_many) + R"(], "nic_gbps": 1}, "strategies": ["ps"]})");
    const test::Output o = test::run_possim("run big.json --engine " + e.name + " --out out -q", dir, 60);
    CHECK(o.status == 2);
    CHECK(o.err.find(std::to_string(too_many) + " nodes is more than a local " + e.name + " run can host") !=
          std::string::npos);
    CHECK(test::count_lines(o.err) == 1);
    CHECK_FALSE(std::filesystem::exists(dir / "out"));  // no point ran, nothing written
  }
  std::filesystem::remove_all(dir);
}
