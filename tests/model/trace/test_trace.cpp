// Chrome traces: units, tracks and their order, lanes for concurrent slices, flow arrows
// from backward to sync, the header; which workers and points are traced, file names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "support/fixtures.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/error.hpp"
#include "model/trace/chrome_trace.hpp"
#include "model/trace/trace_points.hpp"
#include "model/run/worker_selection.hpp"
#include "support/run_possim.hpp"
#include "sim/simgrid_engine.hpp"

namespace fs = std::filesystem;
using namespace possim;
using namespace possim::test;

namespace {

struct Parsed {
  std::map<int, std::string> threads;  // tid -> name
  std::map<int, int> thread_pid;       // tid -> pid
  std::map<int, std::string> processes;  // pid -> name
  std::map<int, int> process_sort;       // pid -> sort index
  std::vector<nlohmann::json> slices, flows;
  std::string process;  // process 0's: the title
};

Parsed parse(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  Parsed p;
  for (const auto& e : j.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (e.at("name") == "thread_name") {
      p.threads[e.at("tid").get<int>()] = e.at("args").at("name");
      p.thread_pid[e.at("tid").get<int>()] = e.at("pid").get<int>();
    }
    if (e.at("name") == "process_name") p.processes[e.at("pid").get<int>()] = e.at("args").at("name");
    if (e.at("name") == "process_sort_index")
      p.process_sort[e.at("pid").get<int>()] = e.at("args").at("sort_index").get<int>();
    if (ph == "X") p.slices.push_back(e);
    if (ph == "s" || ph == "f") p.flows.push_back(e);
  }
  p.process = p.processes[0];
  return p;
}

TimelineEvent event(const std::string& track, const std::string& category, double start_s, double duration_s,
                    int layer = -1, int worker = -1, int iteration = 0) {
  return TimelineEvent{track, category + " l" + std::to_string(layer), category, start_s, duration_s,
                       iteration, layer, worker};
}

// Slices of one thread overlap nowhere (in the file's own microseconds).
void check_disjoint_threads(const Parsed& p) {
  std::map<int, std::vector<std::pair<double, double>>> by_tid;
  for (const auto& s : p.slices)
    by_tid[s.at("tid").get<int>()].emplace_back(s.at("ts").get<double>(),
                                                s.at("ts").get<double>() + s.at("dur").get<double>());
  for (auto& [tid, spans] : by_tid) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) {
      INFO(p.threads.at(tid) << " at " << spans[i].first);
      CHECK(spans[i].first >= spans[i - 1].second - 1e-9);
    }
  }
}

}  // namespace

TEST_CASE("Chrome trace: units, tracks and their order", "[trace]") {
  const std::vector<TimelineEvent> events = {
      {"shard 0 CPU", "apply fc6", "apply", 0.5, 0.25, 1},
      {"worker 10 GPU", "backward fc6", "backward", 0.1, 0.2, 0},
      {"worker 2 net", "push fc6", "push", 0.3, 0.1, 0},
      {"worker 2 GPU", "forward conv1", "forward", 0.0, 0.1, 0},
  };
  const std::string text = chrome_trace(events, TraceMeta{"test", "", {}, 0, {}});
  const Parsed p = parse(text);
  REQUIRE(p.threads.size() == 4);
  CHECK(p.threads.at(1) == "worker 2 GPU");
  CHECK(p.threads.at(2) == "worker 2 net");
  CHECK(p.threads.at(3) == "worker 10 GPU");
  CHECK(p.threads.at(4) == "shard 0 CPU");
  REQUIRE(p.slices.size() == 4);
  CHECK(p.slices[0].at("ts").get<double>() == Approx(500000.0));
  CHECK(p.slices[0].at("dur").get<double>() == Approx(250000.0));
  CHECK(p.threads.at(p.slices[0].at("tid").get<int>()) == "shard 0 CPU");
  CHECK(p.slices[0].at("args").at("iteration") == 1);
  CHECK(p.slices[0].at("args").at("step") == "apply");
  // A process per node, sorted by it; a shard of no known node past them.
  CHECK(p.thread_pid.at(1) == 3);
  CHECK(p.thread_pid.at(2) == 3);
  CHECK(p.thread_pid.at(3) == 11);
  CHECK(p.thread_pid.at(4) == 12);
  CHECK(p.processes.at(3) == "node 2");
  CHECK(p.processes.at(11) == "node 10");
  CHECK(p.processes.at(12) == "shard 0");
  CHECK(p.process_sort.at(11) == 11);
  CHECK(p.slices[0].at("pid") == 12);
  CHECK(text.find("displayTimeUnit") == std::string::npos);  // older viewers read it as the timestamp unit
  CHECK(text.rfind("{\"traceEvents\":", 0) == 0);  // first: Perfetto v20 reads nothing otherwise
  CHECK(p.process == "test");
}

TEST_CASE("Chrome trace: concurrent slices of a track go to lanes, none overlaps", "[trace]") {
  // Three flows on one NIC: two at once, the third after the first ends.
  const std::vector<TimelineEvent> events = {
      event("node 3 NIC tx", "push", 0.0, 1e-3), event("node 3 NIC tx", "push", 0.5e-3, 1e-3),
      event("node 3 NIC tx", "push", 1e-3, 0.2e-3), event("node 3 NIC tx", "push", 1.5e-3, 1e-3),
      event("node 3 NIC rx", "pull", 0.0, 1e-3)};
  const Parsed p = parse(chrome_trace(events, TraceMeta{"t", "", {}, 0, {}}));
  REQUIRE(p.slices.size() == events.size());
  std::set<std::string> names;
  for (const auto& [tid, name] : p.threads) names.insert(name);
  CHECK(names == std::set<std::string>{"node 3 NIC tx", "node 3 NIC tx \u00b7 2", "node 3 NIC rx"});
  // The lanes sit right under their track, before the next track.
  CHECK(p.threads.at(1) == "node 3 NIC tx");
  CHECK(p.threads.at(2) == "node 3 NIC tx \u00b7 2");
  check_disjoint_threads(p);
}

TEST_CASE("Chrome trace: a process per node with its shards and NICs and args on every slice", "[trace]") {
  // 2 worker nodes; shard 0 on node 0, shard 1 on a dedicated server node 2.
  std::vector<TimelineEvent> events = {
      event("worker 1 GPU", "backward", 0.0, 1e-3, 4, 1),
      event("node 1 NIC tx", "push", 1e-3, 1e-3, 4),
      event("shard 1 CPU", "apply", 2e-3, 1e-3, 4),
      event("node 2 NIC rx", "push", 1e-3, 1e-3, 4),
      event("shard 0 CPU", "apply", 2e-3, 1e-3, 4),
      event("step sync", "barrier", 3e-3, 1e-3)};
  events[1].bytes = 4096;
  events[1].peer = 2;
  events[1].shard = 1;
  events[1].flows = 3;
  events[2].shard = 1;
  events[2].bytes = 2048.4;
  TraceMeta meta{"t", "", {}, 0, {}};
  meta.nodes = 2;
  meta.shard_nodes = {0, 2};
  const std::string text = chrome_trace(events, meta);
  const Parsed p = parse(text);
  CHECK(p.processes == std::map<int, std::string>{{0, "t"}, {1, "node 0"}, {2, "node 1"}, {3, "node 2 (server)"}});
  CHECK(p.process_sort == std::map<int, int>{{0, 0}, {1, 1}, {2, 2}, {3, 3}});
  std::map<std::string, int> pid;
  for (const auto& [tid, name] : p.threads) pid[name] = p.thread_pid.at(tid);
  CHECK(pid == std::map<std::string, int>{{"step sync", 0}, {"shard 0 CPU", 1}, {"worker 1 GPU", 2},
                                          {"node 1 NIC tx", 2}, {"node 2 NIC rx", 3}, {"shard 1 CPU", 3}});
  // Reading order inside a node: the worker's tracks, the NICs, the shards.
  CHECK(p.threads.at(1) == "step sync");
  CHECK(p.threads.at(5) == "node 2 NIC rx");
  CHECK(p.threads.at(6) == "shard 1 CPU");
  REQUIRE(p.slices.size() == events.size());
  const auto& push = p.slices[1].at("args");
  CHECK(push == nlohmann::json{{"step", "push"}, {"iteration", 0}, {"layer", 4}, {"bytes", 4096},
                               {"peer", "node 2"}, {"shard", 1}, {"flows", 3}});
  CHECK(p.slices[0].at("args") == nlohmann::json{{"step", "backward"}, {"iteration", 0}, {"layer", 4}, {"worker", 1}});
  CHECK(p.slices[2].at("args").at("bytes") == 2048);
  CHECK(p.slices[5].at("args") == nlohmann::json{{"step", "barrier"}, {"iteration", 0}});
  // Each slice sits in its thread's process.
  for (const auto& sl : p.slices) CHECK(sl.at("pid") == p.thread_pid.at(sl.at("tid").get<int>()));
  CHECK(chrome_trace(events, meta) == text);  // the same bytes each time
}

TEST_CASE("Chrome trace: back-to-back slices stay on one lane despite rounding", "[trace]") {
  // 0.1 + 0.2 != 0.3 in binary: the second slice starts a hair before the first "ends".
  const std::vector<TimelineEvent> events = {event("worker 0 GPU", "forward", 0.1, 0.2),
                                             event("worker 0 GPU", "forward", 0.3, 0.1)};
  REQUIRE(0.1 + 0.2 > 0.3);
  const Parsed p = parse(chrome_trace(events, TraceMeta{"t", "", {}, 0, {}}));
  CHECK(p.threads.size() == 1);
  CHECK(p.slices[0].at("ts").get<double>() + p.slices[0].at("dur").get<double>() ==
        p.slices[1].at("ts").get<double>());
}

TEST_CASE("Chrome trace: arrows from a layer's backward to its later sync slices", "[trace]") {
  const std::vector<TimelineEvent> events = {
      event("worker 0 GPU", "backward", 1.0, 0.1, 5, 0),
      event("worker 0 PCIe", "copy_d2h", 1.1, 0.1, 5, 0),       // arrow
      event("worker 0 net", "push", 1.2, 0.3, 5, 0),            // arrow
      event("worker 0 net", "pull", 0.2, 0.1, 5, 0),            // before the backward: none
      event("worker 1 net", "push", 1.2, 0.3, 5, 1),            // another worker: none
      event("worker 0 net", "push", 1.2, 0.3, 5, 0, 1),         // another iteration: none
      event("node 0 NIC tx", "push", 1.2, 0.3, 5, -1),          // a node track: none
      event("worker 0 GPU", "forward", 2.0, 0.1, 5, 0)};        // compute: none
  const std::string text = chrome_trace(events, TraceMeta{"t", "workers 0-1 of 4 (2-3 left out)", {}, 0, {}});
  const Parsed p = parse(text);
  REQUIRE(p.flows.size() == 4);
  std::map<std::string, int> tid;
  for (const auto& [id, name] : p.threads) tid[name] = id;
  for (std::size_t i = 0; i < p.flows.size(); i += 2) {
    const auto &s = p.flows[i], &f = p.flows[i + 1];
    CHECK(s.at("ph") == "s");
    CHECK(f.at("ph") == "f");
    CHECK(f.at("bp") == "e");  // bound to the slice that encloses it
    CHECK(s.at("id") == f.at("id"));
    CHECK(s.at("tid") == tid.at("worker 0 GPU"));
    CHECK(s.at("ts").get<double>() == Approx(1.05e6));  // inside the backward slice
  }
  CHECK(p.flows[1].at("tid") == tid.at("worker 0 PCIe"));
  for (const auto& f : p.flows) CHECK(f.at("pid") == p.thread_pid.at(f.at("tid").get<int>()));
  CHECK(p.flows[3].at("tid") == tid.at("worker 0 net"));
  CHECK(p.flows[3].at("ts").get<double>() == Approx(1.35e6));
  // The header: which workers, how many slices and arrows.
  CHECK(p.process == "t \u00b7 workers 0-1 of 4 (2-3 left out)");
  const auto meta = nlohmann::json::parse(text).at("metadata").at("possim");
  CHECK(meta.at("slices") == events.size());
  CHECK(meta.at("flows") == 2);
  CHECK(meta.at("workers") == "workers 0-1 of 4 (2-3 left out)");
}

TEST_CASE("worker lists of --trace-workers: ranges, 'all', the default cap, and errors", "[trace]") {
  const WorkerSelection s = WorkerSelection::parse("7,0-3,2-4", "--trace-workers");
  CHECK(s.traced(10) == "0-4,7");
  CHECK(s.left_out(10) == "5-6,8-9");
  CHECK(s.describe(10) == "workers 0-4,7 of 10 (5-6,8-9 left out)");
  CHECK(s.describe(4) == "all 4 workers");
  CHECK(WorkerSelection().traced(1000) == "0-" + std::to_string(kTraceWorkerCap - 1));
  CHECK(WorkerSelection::all().left_out(100000) == "");
  CHECK(WorkerSelection::parse("3", "x").describe(2) == "no worker of 2 (all left out)");
  for (const char* bad : {"", "a", "1-", "-1", "3-1", "1,,2", "1-2-3", "0x1", "99999999", "1 ,2"}) {
    INFO(bad);
    CHECK_THROWS_AS(WorkerSelection::parse(bad, "--trace-workers"), InputError);
  }
  CHECK_THROWS_WITH(WorkerSelection::parse("5-2", "--trace-workers"),
                    Catch::Contains("--trace-workers") && Catch::Contains("runs backwards"));
}

TEST_CASE("trace files are named by every axis, bandwidth unrounded", "[trace]") {
  CHECK(gbps_for_file_name(0.5) == "0p5");
  CHECK(gbps_for_file_name(1) == "1");
  CHECK(gbps_for_file_name(10) == "10");
  CHECK(gbps_for_file_name(2.5e-5) == "2p5em05");
  CHECK(gbps_for_file_name(0.1) == "0p1");
  Result r;
  r.strategy = "poseidon";
  r.cluster.nodes = 8;
  r.cluster.gpus_per_node = 2;
  r.cluster.nic_gbps = 0.5;
  CHECK(trace_file_name(r) == "trace_poseidon_8n_0p5g_2gpu.json");
}

TEST_CASE("points of --trace-point name points of the sweep", "[trace]") {
  const std::vector<SweepPoint> sweep = {{"ps", 2, 0.5}, {"ps", 2, 1}, {"ps", 4, 0.5}, {"poseidon", 2, 0.5}};
  const auto chosen = parse_trace_points({"poseidon:2:0.5", "ps:2:1.0", "ps:2:1"}, sweep, "--trace-point");
  REQUIRE(chosen.size() == 2);  // in sweep order, each once
  CHECK(chosen[0].nic_gbps == 1);
  CHECK(chosen[1].strategy == "poseidon");
  for (const char* bad : {"ps:2", "ps:2:1:1", "ps:3:1", "wfbp:2:1", "ps:2:2", "ps:two:1", "ps:2:", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_trace_points({bad}, sweep, "--trace-point"), InputError);
  }
  CHECK_THROWS_WITH(parse_trace_points({"ps:3:1"}, sweep, "--trace-point"),
                    Catch::Contains("strategy of [ps, poseidon], nodes of [2, 4], Gbit/s of [0.5, 1]"));
}

TEST_CASE("the SimGrid engine records exactly the chosen workers and their nodes' NICs", "[trace][simgrid]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  RunOptions o;
  o.timeline = true;
  o.trace_workers = WorkerSelection::parse("1,3", "test");
  const Result r = sim::SimGridEngine().run(make_plan("poseidon", request(net, prof, 4, 10, 32, 2)), o);
  std::set<int> workers, nodes;
  std::set<std::tuple<std::string, std::string, int>> nic_tasks;
  bool shard = false;
  for (const TimelineEvent& e : r.timeline) {
    if (e.track.rfind("worker ", 0) == 0) {
      workers.insert(std::stoi(e.track.substr(7)));
      CHECK(e.worker == std::stoi(e.track.substr(7)));
    }
    if (e.track.rfind("node ", 0) == 0) {
      nodes.insert(std::stoi(e.track.substr(5)));
      CHECK(e.worker == -1);
      CHECK(e.flows >= 1);  // a task's flows on this NIC, with their bytes
      CHECK(e.bytes > 0);
      CHECK(nic_tasks.insert(std::make_tuple(e.track, e.name, e.iteration)).second);  // once per task
    }
    shard |= e.track.rfind("shard ", 0) == 0;
    if (e.category != "barrier") CHECK(e.layer >= 0);
  }
  CHECK(workers == std::set<int>{1, 3});
  CHECK(nodes == std::set<int>{1, 3});
  CHECK(shard);  // every shard, whichever workers
}

TEST_CASE("the analytic engine's representative is worker 0, its server no worker", "[trace][analytic]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  RunOptions o;
  o.timeline = true;
  const Result r = AnalyticEngine().run(make_plan("ps", request(net, prof, 4, 10, 32, 2)), o);
  REQUIRE_FALSE(r.timeline.empty());
  for (const TimelineEvent& e : r.timeline) {
    INFO(e.track);
    CHECK(e.worker == (e.track.find("server") != std::string::npos ? -1 : 0));
    CHECK(e.layer >= 0);
  }
}

TEST_CASE("possim run --trace: files in the output folder, chosen points, bad options exit 2",
          "[trace][cli]") {
  const auto dir = scratch("trace", "cli");
  std::ofstream(dir / "s.json") << R"({"name": "t", "model": "cifar10_quick", "batch_per_gpu": 16,
    "cluster": {"nodes": [2, 4], "nic_gbps": [0.5, 1]}, "strategies": ["ps"], "iterations": 2})";
  // Every point: 0.5 and 1 Gbit/s apart, in --out, a warning past a few files.
  Output o = run_possim("run s.json --engine analytic --trace --out all", dir);
  INFO(o.out << o.err);
  REQUIRE(o.status == 0);
  for (const char* f : {"trace_ps_2n_0p5g_1gpu.json", "trace_ps_2n_1g_1gpu.json", "trace_ps_4n_0p5g_1gpu.json",
                        "trace_ps_4n_1g_1gpu.json"})
    CHECK(fs::exists(dir / "all" / f));
  CHECK_FALSE(fs::exists(dir / "traces"));
  CHECK(o.out.find("wrote all/trace_ps_4n_1g_1gpu.json") != std::string::npos);
  // One point, some workers (the SimGrid engine), in the default results folder.
  o = run_possim("run s.json --trace-point ps:4:0.5 --trace-workers 1-2", dir);
  REQUIRE(o.status == 0);
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir / "results" / "t" / "simgrid")) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"results.csv", "results.json", "trace_ps_4n_0p5g_1gpu.json"});
  CHECK(o.out.find("workers 1-2 of 4 (0,3 left out)") != std::string::npos);
  std::ifstream trace(dir / "results" / "t" / "simgrid" / "trace_ps_4n_0p5g_1gpu.json");
  const auto header = nlohmann::json::parse(trace).at("metadata").at("possim");
  CHECK(header.at("left_out_workers") == "0,3");
  // Bad input: one line, exit 2, nothing written.
  for (const char* bad : {"--trace-point ps:3:1", "--trace-point ps:4", "--trace-point wfbp:4:1",
                          "--trace-workers 1-x", "--trace-workers 9", "--trace-workers ''"}) {
    INFO(bad);
    o = run_possim("run s.json --engine analytic --out bad " + std::string(bad), dir);
    CHECK(o.status == 2);
    CHECK(std::count(o.err.begin(), o.err.end(), '\n') == 1);
    CHECK(o.err.find(std::string(bad).substr(0, std::string(bad).find(' '))) != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "bad"));
  }
}
