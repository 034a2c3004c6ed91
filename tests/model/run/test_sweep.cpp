// possim sweep (issue 12): the grid a sweep file expands to and its point keys; resuming
// after an interrupt; --shard and merge; mpirun ranks. Analytic engine and a tiny model,
// so that the whole file runs in seconds.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "model/input/error.hpp"
#include "model/run/sweep_grid.hpp"
#include "support/processes.hpp"
#include "support/run_possim.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using possim::InputError;
using possim::RunIdentity;
using possim::parse_sweep;
using possim::test::run_command;
using possim::test::run_possim;
using possim::test::scratch;
using possim::test::slurp;

namespace {

const RunIdentity kAnalytic{"analytic", false};

json base_scenario() {
  return json::parse(R"({"name": "base", "model": "cifar10_quick", "batch_per_gpu": 100,
    "cluster": {"nodes": [1, 2], "nic_gbps": 10}, "strategies": ["ps", "poseidon"], "iterations": 2})");
}

possim::SweepGrid grid(const json& axes, const RunIdentity& id = kAnalytic, json scenario = base_scenario()) {
  const json sweep = {{"name", "g"}, {"scenario", scenario}, {"axes", axes}};
  return parse_sweep(sweep.dump(), "sweep.json", ".", id);
}

int count_lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

// A sweep of `points` points: cifar10_quick, ps/poseidon/wfbp, over nodes and bandwidths.
void write_sweep(const fs::path& file, int bandwidths) {
  json nics = json::array();
  for (int i = 0; i < bandwidths; ++i) nics.push_back(1 + i);
  const json sweep = {{"name", "s"},
                      {"scenario", base_scenario()},
                      {"axes", {{"cluster.nic_gbps", nics},
                                {"cluster.nodes", {1, 2, 4, 8, 16}},
                                {"strategies", {"ps", "wfbp", "poseidon"}}}}};
  std::ofstream(file) << sweep.dump(1);
}

}  // namespace

TEST_CASE("a sweep expands to the cartesian grid, the last axis in scenario order fastest", "[sweep]") {
  // Given in another order than sweep_axes(): the grid does not follow the file's order.
  const auto g = grid({{"cluster.nic_gbps", {1, 10, 40}}, {"batch_per_gpu", {50, 100}}});
  // strategies and cluster.nodes come from the base's lists.
  REQUIRE(g.axes == std::vector<std::string>{"batch_per_gpu", "strategies", "cluster.nodes", "cluster.nic_gbps"});
  REQUIRE(g.points.size() == 2 * 2 * 2 * 3);
  CHECK(g.points[0].values == json{{"batch_per_gpu", 50}, {"strategies", "ps"}, {"cluster.nodes", 1},
                                   {"cluster.nic_gbps", 1}});
  CHECK(g.points[1].values["cluster.nic_gbps"] == 10);
  CHECK(g.points[3].values["cluster.nodes"] == 2);
  CHECK(g.points[23].values == json{{"batch_per_gpu", 100}, {"strategies", "poseidon"}, {"cluster.nodes", 2},
                                    {"cluster.nic_gbps", 40}});
  // Each point is a scenario of one point with those values.
  const possim::Scenario s = g.scenario(23);
  CHECK(s.batch_per_gpu == 100);
  CHECK(s.strategies == std::vector<std::string>{"poseidon"});
  CHECK(s.nodes == std::vector<int>{2});
  CHECK(s.nic_gbps == std::vector<double>{40});
  CHECK(s.name == "g");
  CHECK(g.describe(23) == "point 23 (batch_per_gpu=100, strategies=poseidon, cluster.nodes=2, cluster.nic_gbps=40)");
  // Nested fields are made where the base has none.
  const auto shards =
      grid({{"cluster.servers.shards", {1, 2}}, {"cluster.nodes", 2}, {"strategy_options.kv_pair_bytes", 1048576}});
  CHECK(shards.scenario(0).server_shards == 1);
  CHECK(shards.scenario(1).server_shards == 2);
  CHECK(shards.scenario(0).options.kv_pair_bytes == 1048576);
}

TEST_CASE("point keys: the same inputs the same key, anything that changes a number another", "[sweep]") {
  const auto a = grid({{"cluster.nic_gbps", {1, 10}}});
  const auto b = grid({{"cluster.nic_gbps", {10, 1}}});
  std::set<std::string> keys;
  for (const auto& p : a.points) {
    CHECK(p.key.size() == 64);
    keys.insert(p.key);
  }
  CHECK(keys.size() == a.points.size());
  // Order of values, the sweep's name and the base's name and description change no key.
  json renamed = base_scenario();
  renamed["name"] = "other";
  renamed["description"] = "words";
  const auto c = grid({{"cluster.nic_gbps", {1, 10}}}, kAnalytic, renamed);
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    CHECK(c.points[i].key == a.points[i].key);
    const auto& v = a.points[i].values;
    const auto same = std::find_if(b.points.begin(), b.points.end(), [&](const auto& p) { return p.values == v; });
    REQUIRE(same != b.points.end());
    CHECK(same->key == a.points[i].key);
  }
  // The engine, --all-iterations and any scenario field do.
  const auto simgrid = grid({{"cluster.nic_gbps", {1, 10}}}, RunIdentity{"simgrid", false});
  const auto all = grid({{"cluster.nic_gbps", {1, 10}}}, RunIdentity{"analytic", true});
  json more = base_scenario();
  more["iterations"] = 3;
  const auto iterations = grid({{"cluster.nic_gbps", {1, 10}}}, kAnalytic, more);
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    CHECK(simgrid.points[i].key != a.points[i].key);
    CHECK(all.points[i].key != a.points[i].key);
    CHECK(iterations.points[i].key != a.points[i].key);
  }
  // Points of one model, batch and bandwidth share their single-GPU reference.
  CHECK(a.points[0].baseline_key == a.points[2].baseline_key);  // ps 1 node, ps 2 nodes at 1 Gbit/s
  CHECK(a.points[0].baseline_key != a.points[0].key);
}

TEST_CASE("single runs on one node: its points at several node counts are one", "[sweep]") {
  const auto g = grid({{"strategies", {"single", "ps"}}, {"cluster.nodes", {1, 2, 4}}});
  REQUIRE(g.points.size() == 1 + 3);
  CHECK(g.merged == 2);
  CHECK(g.points[0].values["strategies"] == "single");
  CHECK(g.points[0].values["cluster.nodes"] == 1);
  CHECK(g.points[1].values["strategies"] == "ps");
}

TEST_CASE("bad sweep files: one InputError naming the file and the field", "[sweep]") {
  const auto refused = [](const json& axes, const std::string& needle, json scenario = base_scenario()) {
    INFO(axes.dump() << " -> " << needle);
    try {
      grid(axes, kAnalytic, scenario);
      FAIL("accepted");
    } catch (const InputError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.rfind("sweep.json", 0) == 0);
      CHECK(what.find(needle) != std::string::npos);
      CHECK(what.find('\n') == std::string::npos);
    }
  };
  refused({{"nic_gbps", {1, 2}}}, "did you mean 'cluster.nic_gbps'?");
  refused({{"strategy", {"ps"}}}, "did you mean 'strategies'?");
  refused({{"cluster.nic_gbps", json::array()}}, "empty list");
  refused({{"cluster.nic_gbps", {1, 1}}}, "axes.cluster.nic_gbps[1]: duplicate");
  refused({{"cluster.nic_gbps", {{{"x", 1}}}}}, "not a number or a string");
  // A value the scenario refuses names the point.
  refused({{"cluster.nic_gbps", {10, 0.001}}}, "point 1 (strategies=ps, cluster.nodes=1, cluster.nic_gbps=0.001): cluster.nic_gbps");
  refused({{"model", {"cifar10_quick", "vgg91"}}}, "did you mean 'vgg19'?");
  // Over limits::kMaxSweepPoints (10000) before anything is expanded.
  json many = json::array();
  for (int i = 0; i < 1000; ++i) many.push_back(1 + i * 0.1);
  refused({{"cluster.nic_gbps", many}, {"batch_per_gpu", {1, 2, 3, 4, 5, 6}}}, "over 10000 points");
  json no_base = {{"name", "g"}, {"axes", json::object()}};
  CHECK_THROWS_WITH(parse_sweep(no_base.dump(), "sweep.json", ".", kAnalytic),
                    Catch::Contains("sweep.json: base: missing"));
  CHECK_THROWS_WITH(parse_sweep("{\"scenario\": ", "sweep.json", ".", kAnalytic),
                    Catch::Contains("sweep.json: malformed JSON"));
  CHECK_THROWS_WITH(parse_sweep(std::string(100, '[') + std::string(100, ']'), "sweep.json", ".", kAnalytic),
                    Catch::Contains("nested deeper than 64"));
}

TEST_CASE("possim sweep: bad input exits 2 with one line and writes nothing", "[sweep][cli]") {
  const auto dir = scratch("sweep", "bad");
  std::ofstream(dir / "typo.json") << R"({"scenario": {}, "axes": {}, "extra": 1})";
  std::ofstream(dir / "missing_base.json") << R"({"base": "nowhere.json", "axes": {}})";
  for (const std::string args :
       {"sweep typo.json --engine analytic", "sweep missing_base.json --engine analytic",
        "sweep /nonexistent.json", "sweep .", "sweep typo.json --shard 2/2", "sweep typo.json --shard x",
        "sweep typo.json --engine warp", "sweep merge nowhere", "sweep merge"}) {
    const auto o = run_possim(args, dir);
    INFO(args << ": " << o.err);
    CHECK(o.status == 2);
    CHECK(count_lines(o.err) == 1);
  }
  CHECK_FALSE(fs::exists(dir / "results"));
}

TEST_CASE("a sweep interrupted by SIGINT and run again gives the uninterrupted sweep's results",
          "[sweep][cli][interrupt]") {
  const auto dir = scratch("sweep", "resume");
  write_sweep(dir / "s.json", 40);  // 600 points
  const auto whole = run_possim("sweep s.json --engine analytic --out whole", dir);
  REQUIRE(whole.status == 0);
  // Plain progress lines when stderr is a file, with an estimate of the time left.
  CHECK(whole.err.find("sweep: 30/600 points (5%)") != std::string::npos);
  CHECK(whole.err.find("left") != std::string::npos);
  CHECK(whole.err.find('\r') == std::string::npos);

  const pid_t pid = possim::test::start_possim(dir, {"sweep", "s.json", "--engine", "analytic", "--out", "cut", "-j", "2"});
  REQUIRE(pid > 0);
  // Interrupted once some points are done.
  const auto t0 = std::chrono::steady_clock::now();
  while (count_lines(slurp(dir / "cut" / "points.jsonl")) < 20 &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  REQUIRE(kill(pid, SIGINT) == 0);
  double took = 0;
  bool exited = false;
  const int status = possim::test::wait_bounded(pid, std::chrono::seconds(10), took, exited);
  const auto left = possim::test::group_members(pid, -1);
  for (pid_t p : left) kill(p, SIGKILL);
  CHECK(exited);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(left.empty());
  // Whole lines only, fewer than all, and no final results yet.
  const std::string kept = slurp(dir / "cut" / "points.jsonl");
  const int done = count_lines(kept);
  INFO(done << " points done when interrupted");
  CHECK(done >= 20);
  CHECK(done < 600);
  CHECK(kept.back() == '\n');
  for (const auto& f : fs::directory_iterator(dir / "cut"))
    CHECK(f.path().filename() == "points.jsonl");  // no results.csv, no temporary file

  const auto resumed = run_possim("sweep s.json --engine analytic --out cut", dir);
  REQUIRE(resumed.status == 0);
  CHECK(resumed.err.find(std::to_string(done) + " already done in cut") != std::string::npos);
  CHECK(count_lines(slurp(dir / "cut" / "points.jsonl")) == 600);  // nothing run twice
  CHECK(slurp(dir / "cut" / "results.csv") == slurp(dir / "whole" / "results.csv"));
  CHECK(count_lines(slurp(dir / "whole" / "results.csv")) == 601);
  // Run again: nothing left to run, the same results.
  const auto again = run_possim("sweep s.json --engine analytic --out cut -q", dir);
  REQUIRE(again.status == 0);
  CHECK(slurp(dir / "cut" / "results.csv") == slurp(dir / "whole" / "results.csv"));
}

TEST_CASE("shards 0/2 and 1/2 (--shard), merged, give the whole sweep", "[sweep][cli]") {
  const auto dir = scratch("sweep", "shards");
  write_sweep(dir / "s.json", 3);
  REQUIRE(run_possim("sweep s.json --engine analytic --out whole -q", dir).status == 0);
  REQUIRE(run_possim("sweep s.json --engine analytic --shard 0/2 -q", dir).status == 0);
  REQUIRE(run_possim("sweep s.json --engine analytic --shard 1/2 --out b -q", dir).status == 0);
  const fs::path a = dir / "results" / "s" / "analytic" / "shard-0-of-2";
  CHECK(count_lines(slurp(a / "results.csv")) == 1 + 23);  // points 0, 2, ..., 44
  CHECK(count_lines(slurp(dir / "b" / "results.csv")) == 1 + 22);
  // One shard alone is not the sweep.
  const auto partial = run_possim("sweep merge b --out m", dir);
  CHECK(partial.status == 2);
  CHECK(partial.err.find("23 points have no result") != std::string::npos);
  const auto merged = run_possim("sweep merge " + a.string() + " b --out m", dir);
  REQUIRE(merged.status == 0);
  CHECK(slurp(dir / "m" / "results.csv") == slurp(dir / "whole" / "results.csv"));
  const json j = json::parse(slurp(dir / "m" / "results.json"));
  CHECK(j["results"].size() == 45);
  CHECK(j["provenance"]["engine"] == "analytic");
  CHECK(j["provenance"]["sweep"]["sha256"].get<std::string>().size() == 64);
  CHECK(j["results"][0]["point"]["cluster.nic_gbps"] == 1);
  // A merged folder is a sweep folder: run in it, nothing is left to run.
  const auto rerun = run_possim("sweep s.json --engine analytic --out m", dir);
  REQUIRE(rerun.status == 0);
  CHECK(rerun.err.find("45 already done in m") != std::string::npos);
  // Shards of another sweep are refused.
  write_sweep(dir / "t.json", 2);
  REQUIRE(run_possim("sweep t.json --engine analytic --shard 1/2 --out c -q", dir).status == 0);
  const auto mixed = run_possim("sweep merge b c --out x", dir);
  CHECK(mixed.status == 2);
  CHECK(mixed.err.find("not a shard of the same sweep") != std::string::npos);
}

TEST_CASE("under mpirun -np 2 each rank runs half and rank 0 writes the whole sweep", "[sweep][cli][mpi]") {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    WARN("mpirun not found: the mpirun test is skipped (setup.sh installs openmpi-bin)");
    return;
  }
  const auto dir = scratch("sweep", "mpi");
  write_sweep(dir / "s.json", 3);
  REQUIRE(run_possim("sweep s.json --engine analytic --out whole -q", dir).status == 0);
  const std::string root = ::getuid() == 0 ? " --allow-run-as-root" : "";
  const auto o = run_command("mpirun -np 2 --oversubscribe" + root + " '" + possim::test::possim_binary() +
                                 "' sweep s.json --engine analytic --out m -q",
                             dir, 120);
  INFO(o.out << o.err);
  REQUIRE(o.status == 0);
  CHECK(slurp(dir / "m" / "results.csv") == slurp(dir / "whole" / "results.csv"));
  CHECK(count_lines(slurp(dir / "m" / "shard-0-of-2" / "points.jsonl")) == 23);
  CHECK(count_lines(slurp(dir / "m" / "shard-1-of-2" / "points.jsonl")) == 22);
}

TEST_CASE("a sweep over a scenario's own lists gives possim run's numbers, stacks included", "[sweep][cli]") {
  const auto dir = scratch("sweep", "as_run");
  const std::string scenario = std::string(POSSIM_SOURCE_DIR) + "/scenarios/paper/atc17_speedup_tf_vgg19.json";
  std::ofstream(dir / "s.json") << json{{"base", scenario}, {"axes", json::object()}}.dump();
  // Intervals too (titanx_maxwell is a fitted profile): a sweep point reruns as possim run does.
  REQUIRE(run_possim("run " + scenario + " --engine analytic --out run -q", dir).status == 0);
  const auto o = run_possim("sweep s.json --engine analytic --out sweep -q", dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(slurp(dir / "sweep" / "results.csv") == slurp(dir / "run" / "results.csv"));
  CHECK(slurp(dir / "run" / "results.csv").find(",speedup_lo,speedup_hi\n") != std::string::npos);
}

TEST_CASE("strategy_options.best_scheme is a sweep axis: each point's rule, and a column of its own", "[sweep][cli]") {
  const auto g = grid({{"strategy_options.best_scheme", {"atc17", "timed"}}});
  REQUIRE(g.points.size() == 2 * 2 * 2);  // rules x strategies x nodes
  CHECK(g.scenario(0).options.best_scheme == possim::BestSchemeRule::atc17);
  CHECK(g.scenario(g.points.size() - 1).options.best_scheme == possim::BestSchemeRule::timed);
  const auto dir = scratch("sweep", "best_scheme");
  json sweep = {{"name", "b"},
                {"scenario", base_scenario()},
                {"axes", {{"strategy_options.best_scheme", {"atc17", "timed"}}, {"strategies", {"poseidon"}}}}};
  std::ofstream(dir / "s.json") << sweep.dump();
  const auto o = run_possim("sweep s.json --engine analytic --out out -q", dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  const std::string csv = slurp(dir / "out" / "results.csv");
  CHECK(csv.substr(0, csv.find('\n')).find(",best_scheme") != std::string::npos);
  CHECK(csv.find(",\"timed\"") != std::string::npos);
  CHECK(csv.find(",\"atc17\"") != std::string::npos);
}
