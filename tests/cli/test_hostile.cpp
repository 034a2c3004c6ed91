// possim against hostile input (issue 9): files that are not files, JSON nested or sized to
// exhaust the stack or memory, counts past every limit, non-finite numbers, names that
// would escape the results folder. Each must end at once with exit status 2, one line
// naming what was wrong, and nothing written.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/workload/zoo.hpp"
#include "support/run_possim.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using possim::test::Output;
using possim::test::run_possim;
using possim::test::scratch;

namespace {

constexpr int kTimeout = 30;  // seconds: a hang fails the test instead of hanging it

using possim::test::count_lines;
using possim::test::write_file;

// A small valid scenario.
json scenario() {
  return json::parse(R"({"name": "h", "model": "alexnet", "batch_per_gpu": 16,
    "cluster": {"nodes": [1], "nic_gbps": [10]}, "strategies": ["ps"], "iterations": 2})");
}

// A one-layer network as layer JSON, with `change` applied to its layer.
json layer_net(const std::function<void(json&)>& change = {}) {
  json l = {{"name", "fc"},       {"kind", "fc"},      {"in", {1024, 1, 1}}, {"out", {1024, 1, 1}},
            {"weight_params", 1048576}, {"bias_params", 1024}, {"fwd_macs", 1048576.0},
            {"fwd_flops", 2097152.0},   {"bwd_flops", 4194304.0}, {"fc_m", 1024}, {"fc_n", 1024}};
  if (change) change(l);
  return {{"format", "possim-network-1"}, {"name", "one"}, {"input", {1024, 1, 1}}, {"layers", {l}}};
}

// Exit 2, one line on stderr containing `what`, nothing on stdout, no results folder.
void refused(const Output& o, const fs::path& dir, const std::string& what) {
  INFO("stderr: " << o.err.substr(0, 2000));
  CHECK(o.status == 2);
  CHECK(count_lines(o.err) == 1);
  CHECK(o.err.find(what) != std::string::npos);
  CHECK(o.out.empty());
  CHECK_FALSE(fs::exists(dir / "results"));
}

// A layer taking years to compute (1e18 FLOPs per image, 65536 images per GPU): within
// every bound of the readers, past the plan's per-task limit.
json slow_scenario(const fs::path& dir) {
  write_file(dir / "slow_net.json", layer_net([](json& l) { l["fwd_flops"] = 1e18; }).dump());
  json s = scenario();
  s["model"] = "slow_net.json";
  s["batch_per_gpu"] = 65536;
  return s;
}

std::string nested(int depth) { return std::string(std::size_t(depth), '[') + std::string(std::size_t(depth), ']'); }

}  // namespace

TEST_CASE("a FIFO, a device or a folder as an input file is refused at once", "[cli][hostile]") {
  const auto dir = scratch("hostile", "files");
  REQUIRE(mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
  REQUIRE(mkfifo((dir / "fifo.csv").c_str(), 0600) == 0);
  fs::create_directory(dir / "folder.json");
  for (const std::string input : {"fifo.json", "folder.json", "/dev/zero", "/dev/urandom"})
    refused(run_possim("run " + input + " -q", dir, kTimeout), dir, input);

  // A profile, a layer JSON and measurements that are not files.
  for (const auto& [field, value] : {std::pair<std::string, std::string>{"profile", "fifo.json"},
                                     {"profile", "/dev/zero"},
                                     {"model", "fifo.json"},
                                     {"model", "/dev/zero"}}) {
    json s = scenario();
    s[field] = value;
    write_file(dir / "s.json", s.dump());
    refused(run_possim("run s.json -q", dir, kTimeout), dir, value);
  }
  refused(run_possim("models show ./fifo.json", dir, kTimeout), dir, "fifo.json");
  refused(run_possim("calibrate fit fifo.csv --profile titanx_maxwell --out f.json -q", dir, kTimeout),
          dir, "fifo.csv");
  write_file(dir / "m.csv", "model,strategy,nodes,nic_gbps,iteration_s\nalexnet,ps,2,10,0.5\n");
  refused(run_possim("calibrate fit m.csv --profile ./fifo.json --out f.json -q", dir, kTimeout), dir,
          "fifo.json");
  CHECK_FALSE(fs::exists(dir / "f.json"));
}

TEST_CASE("JSON nested 100000 deep is refused before it is parsed", "[cli][hostile]") {
  const auto dir = scratch("hostile", "nested");
  const std::string deep = nested(100000);
  // The scenario itself, and a nested value in each of its fields that take one.
  write_file(dir / "top.json", deep);
  refused(run_possim("run top.json -q", dir, kTimeout), dir, "nested deeper than 64");
  for (const char* field : {"name", "model", "strategies"}) {
    json s = scenario();
    write_file(dir / "s.json", s.dump().insert(1, "\"" + std::string(field) + "_\": " + deep + ", "));
    refused(run_possim("run s.json -q", dir, kTimeout), dir, "nested deeper than 64");
  }
  std::string s = scenario().dump();
  s.replace(s.find("[1]"), 3, deep);  // nodes
  write_file(dir / "s.json", s);
  refused(run_possim("run s.json -q", dir, kTimeout), dir, "nested deeper than 64");
  // A layer JSON, a profile and measurements.
  write_file(dir / "net.json", "{\"layers\": " + deep + "}");
  write_file(dir / "prof.json", "{\"throughput\": " + deep + "}");
  json m = scenario();
  m["model"] = "net.json";
  write_file(dir / "m.json", m.dump());
  refused(run_possim("run m.json -q", dir, kTimeout), dir, "net.json");
  json p = scenario();
  p["profile"] = "prof.json";
  write_file(dir / "p.json", p.dump());
  refused(run_possim("run p.json -q", dir, kTimeout), dir, "prof.json");
  refused(run_possim("models show ./net.json", dir, kTimeout), dir, "nested deeper than 64");
  write_file(dir / "meas.json", "{\"points\": " + deep + "}");
  refused(run_possim("calibrate fit meas.json --profile titanx_maxwell --out f.json -q", dir, kTimeout),
          dir, "nested deeper than 64");
  // 64 levels are fine for the checker (the scenario then fails on its field instead).
  json ok = scenario();
  write_file(dir / "s.json", ok.dump().insert(1, "\"x\": " + nested(63) + ", "));
  const Output o = run_possim("run s.json -q", dir, kTimeout);
  CHECK(o.status == 2);
  CHECK(o.err.find("unknown field") != std::string::npos);
}

TEST_CASE("numbers beyond a double (1e999) are malformed JSON, exit 2", "[cli][hostile]") {
  const auto dir = scratch("hostile", "overflow");
  std::string s = scenario().dump();
  s.replace(s.find("16"), 2, "1e999");
  write_file(dir / "s.json", s);
  refused(run_possim("run s.json -q", dir, kTimeout), dir, "s.json: malformed JSON");
  std::string net = layer_net().dump();
  net.replace(net.find("2097152.0"), 9, "1e999");
  write_file(dir / "net.json", net);
  json m = scenario();
  m["model"] = "net.json";
  write_file(dir / "m.json", m.dump());
  refused(run_possim("run m.json -q", dir, kTimeout), dir, "net.json: malformed JSON");
  write_file(dir / "meas.json",
        R"([{"model": "alexnet", "strategy": "ps", "nodes": 2, "nic_gbps": 1e999, "iteration_s": 1}])");
  refused(run_possim("calibrate fit meas.json --profile titanx_maxwell --out f.json -q", dir, kTimeout),
          dir, "meas.json: malformed JSON");
}

TEST_CASE("a 10 MB unknown key gets a short one-line message, no hint computed", "[cli][hostile]") {
  const auto dir = scratch("hostile", "bigkey");
  json s = scenario();
  s[std::string(10 << 20, 'k')] = 1;
  write_file(dir / "s.json", s.dump());
  const Output o = run_possim("run s.json -q", dir, kTimeout);
  refused(o, dir, "unknown field");
  CHECK(o.err.size() < 1000);
}

TEST_CASE("counts past the stated limits are refused naming the limit", "[cli][hostile]") {
  const auto dir = scratch("hostile", "limits");
  const auto run = [&](const json& s, const std::string& what, const std::string& engine = "simgrid") {
    write_file(dir / "s.json", s.dump());
    INFO(s.dump().substr(0, 300));
    refused(run_possim("run s.json -q --engine " + engine, dir, kTimeout), dir, what);
  };
  json s = scenario();
  s["cluster"]["nodes"] = json::array();
  for (int n = 1; n <= 1001; ++n) s["cluster"]["nodes"].push_back(n);
  run(s, "over the limit of 1000 per sweep axis");
  s = scenario();
  s["strategies"] = {"ps", "wfbp", "poseidon", "tf_stock", "adam", "onebit", "allreduce"};
  s["cluster"]["nodes"] = json::array();
  s["cluster"]["nic_gbps"] = {1, 10};
  for (int n = 1; n <= 1000; ++n) s["cluster"]["nodes"].push_back(n);
  run(s, "over the limit of 10000 points");
  s = scenario();
  s["cluster"]["nodes"] = {100000};
  run(s, "cluster.nodes[0]: 100000 is out of range");
  s = scenario();
  s["cluster"]["nodes"] = {65536};
  s["cluster"]["gpus_per_node"] = 64;
  run(s, "over the limit of 1048576 GPUs");
  s = scenario();
  s["iterations"] = 1000000;
  run(s, "iterations: 1000000 is out of range");
  s = scenario();
  s["cluster"]["servers"] = {{"shards", 100000}, {"placement", "dedicated"}};
  run(s, "cluster.servers.shards");
  // The SimGrid engine's own size: 65536 nodes is a valid cluster, not one it can hold
  // node by node (folded by classes it runs: sim/fold.hpp).
  s = scenario();
  s["cluster"]["nodes"] = {65536};
  s["strategies"] = {"poseidon"};
  s["iterations"] = 100;
  run(s, "task instances", "simgrid --no-reduce");

  // Layers: parameter counts that overflowed int64, and a KV-pair count that never ends.
  const auto model = [&](const json& net, const std::string& what, const std::string& engine) {
    write_file(dir / "net.json", net.dump());
    json m = scenario();
    m["model"] = "net.json";
    m["strategies"] = {"poseidon"};
    m["strategy_options"] = {{"kv_pair_bytes", 1024}};
    run(m, what, engine);
  };
  for (const char* engine : {"analytic", "simgrid"}) {
    model(layer_net([](json& l) {
            l["weight_params"] = 9000000000000000000ull;
            l["fc_m"] = 9000000000ll;
            l["fc_n"] = 1000000000ll;
          }),
          "weight_params", engine);
    model(layer_net([](json& l) {
            l["kind"] = "conv";
            l.erase("fc_m");
            l.erase("fc_n");
            l["kernel"] = {3, 3};
            l["weight_params"] = 9223372036854775807ll;
            l["bias_params"] = 1;
          }),
          "weight_params", engine);
    model(layer_net([](json& l) {
            l["weight_params"] = 1000000000000ll;
            l["bias_params"] = 0;
            l["fc_m"] = 1000000;
            l["fc_n"] = 1000000;
          }),
          "KV pairs", engine);
  }
  // `models show` printed -9223372036854775808 parameters.
  write_file(dir / "net.json", layer_net([](json& l) {
                            l["kind"] = "bn";
                            l.erase("fc_m");
                            l.erase("fc_n");
                            l["weight_params"] = 9223372036854775807ll;
                            l["bias_params"] = 9223372036854775807ll;
                          }).dump());
  refused(run_possim("models show ./net.json", dir, kTimeout), dir, "weight_params");
}

TEST_CASE("explain refuses node counts and bandwidths past the limits, NaN included",
          "[cli][hostile]") {
  const auto dir = scratch("hostile", "explain");
  write_file(dir / "s.json", scenario().dump());
  for (const std::string bad : {"--nodes 1000000000", "--nodes 0", "--nodes -3", "--gbps nan",
                                "--gbps inf", "--gbps -nan", "--gbps 1e999", "--gbps 0"})
    for (const char* engine : {"simgrid", "analytic"}) {
      INFO(bad << " " << engine);
      const Output o = run_possim("explain s.json --engine " + std::string(engine) + " " + bad, dir, kTimeout);
      refused(o, dir, bad.substr(0, bad.find(' ')));
    }
}

TEST_CASE("FLOPs of 1e308 or a profile peak of 1e-300 are refused, never null or a crash",
          "[cli][hostile]") {
  const auto dir = scratch("hostile", "extreme");
  write_file(dir / "net.json", layer_net([](json& l) { l["fwd_flops"] = 1e308; }).dump());
  std::ifstream in(fs::path(POSSIM_SOURCE_DIR) / "profiles" / "titanx_maxwell.json");
  json prof = json::parse(in);
  prof["peak_flops_per_s"] = 1e-300;
  write_file(dir / "tiny.json", prof.dump());
  for (const char* engine : {"analytic", "simgrid"}) {
    // 1e308 is past the layer JSON's own bound; slow_scenario's layer is not, but takes
    // years on a Titan X.
    json s = scenario();
    s["model"] = "net.json";
    write_file(dir / "s.json", s.dump());
    refused(run_possim("run s.json -q --engine " + std::string(engine), dir, kTimeout), dir, "fwd_flops");
    write_file(dir / "s.json", slow_scenario(dir).dump());
    refused(run_possim("run s.json -q --engine " + std::string(engine), dir, kTimeout), dir,
            "would take");
    s = scenario();
    s["profile"] = "tiny.json";
    write_file(dir / "s.json", s.dump());
    refused(run_possim("run s.json -q --engine " + std::string(engine), dir, kTimeout), dir,
            "would take");
    refused(run_possim("explain s.json --engine " + std::string(engine), dir, kTimeout), dir,
            "would take");
  }
}

TEST_CASE("a scenario name becomes a folder name only when it is safe", "[cli][hostile]") {
  const auto dir = scratch("hostile", "names");
  fs::create_directories(dir / "work");
  const std::vector<std::string> names = {"../../escaped", "a/b", ".", "..", "",
                                         std::string("nul\0x", 5), std::string(10000, 'n'),
                                         "sp ace", "new\nline"};
  for (const std::string& name : names) {
    json s = scenario();
    s["name"] = name;
    write_file(dir / "work" / "s.json", s.dump());
    const Output o = run_possim("run s.json -q --engine analytic", dir / "work", kTimeout);
    INFO("name " << json(name).dump().substr(0, 40));
    refused(o, dir / "work", "s.json: name");
    CHECK(o.err.size() < 1000);
  }
  CHECK_FALSE(fs::exists(dir / "escaped"));
  CHECK_FALSE(fs::exists(fs::temp_directory_path() / "escaped"));
  CHECK(std::distance(fs::directory_iterator(dir / "work"), fs::directory_iterator()) == 2);  // s.json, stderr.txt
  // Safe names are used as they are; a file's stem stands in for a missing name, made safe.
  json s = scenario();
  s["name"] = "ok-Name_1.2";
  write_file(dir / "work" / "s.json", s.dump());
  CHECK(run_possim("run s.json -q --engine analytic", dir / "work").status == 0);
  CHECK(fs::exists(dir / "work" / "results" / "ok-Name_1.2" / "analytic" / "results.json"));
  s.erase("name");
  write_file(dir / "work" / "my run.json", s.dump());
  CHECK(run_possim("run 'my run.json' -q --engine analytic", dir / "work").status == 0);
  CHECK(fs::exists(dir / "work" / "results" / "my_run" / "analytic" / "results.json"));
}

TEST_CASE("results are renamed into place whole: an output folder under a file is refused",
          "[cli][hostile]") {
  const auto dir = scratch("hostile", "out");
  write_file(dir / "s.json", scenario().dump());
  write_file(dir / "file", "a regular file");
  for (const char* out : {"file/results", "file/a/b", "file"}) {
    const Output o = run_possim(std::string("run s.json -q --engine analytic --out ") + out, dir, kTimeout);
    refused(o, dir, "--out");
  }
  // Nothing but what was there: no temporary folder, no half-made parent folders.
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 3);
  // A new folder (with new parents), then a rerun into it: other files stay, results
  // are replaced, no temporary folder remains beside it.
  REQUIRE(run_possim("run s.json -q --engine analytic --out a/b/res", dir).status == 0);
  write_file(dir / "a" / "b" / "res" / "notes.txt", "mine");
  write_file(dir / "a" / "b" / "res" / "results.csv", "old");
  REQUIRE(run_possim("run s.json -q --engine analytic --out a/b/res/", dir).status == 0);
  CHECK(fs::exists(dir / "a" / "b" / "res" / "notes.txt"));
  std::ifstream csv(dir / "a" / "b" / "res" / "results.csv");
  std::string first;
  std::getline(csv, first);
  CHECK(first != "old");
  CHECK(std::distance(fs::directory_iterator(dir / "a" / "b"), fs::directory_iterator()) == 1);
  CHECK(std::distance(fs::directory_iterator(dir / "a" / "b" / "res"), fs::directory_iterator()) == 3);
  // A failing sweep leaves no folder behind either (the parents it would have made included).
  write_file(dir / "bad.json", slow_scenario(dir).dump());
  refused(run_possim("run bad.json -q --engine analytic --out x/y/z", dir, kTimeout), dir, "would take");
  CHECK_FALSE(fs::exists(dir / "x"));
}

TEST_CASE("error messages are one line: control characters in what they quote are escaped",
          "[cli][hostile]") {
  const auto dir = scratch("hostile", "escape");
  json s = scenario();
  s["strategies"] = {"p\ns\r\t\x01"};
  write_file(dir / "s.json", s.dump());
  Output o = run_possim("run s.json -q", dir, kTimeout);
  refused(o, dir, "unknown strategy 'p\\ns\\r\\t\\x01'");
  s = scenario();
  s["new\nfield"] = 1;
  write_file(dir / "s.json", s.dump());
  refused(run_possim("run s.json -q", dir, kTimeout), dir, "new\\nfield");
  write_file(dir / "new\nfile.json", "{");
  refused(run_possim("run 'new\nfile.json' -q", dir, kTimeout), dir, "new\\nfile.json");
  write_file(dir / "s.json", scenario().dump());
  refused(run_possim("explain s.json --strategy 'a\nb'", dir, kTimeout), dir, "a\\nb");
  refused(run_possim("models show 'x\ny'", dir, kTimeout), dir, "x\\ny");
}

TEST_CASE("one failing point stops the sweep with a message naming it", "[cli][hostile]") {
  // A 1e11-parameter layer: syncing it at 0.1 Gbit/s takes hours at 1 node, and across
  // 2048 nodes more than the per-task limit.
  const auto dir = scratch("hostile", "point");
  write_file(dir / "net.json", layer_net([](json& l) {
                            l["weight_params"] = 100000000000ll;
                            l["fc_m"] = 100000;
                            l["fc_n"] = 1000000;
                          }).dump());
  json s = scenario();
  s["model"] = "net.json";
  s["cluster"]["nodes"] = {1, 2048};
  s["cluster"]["nic_gbps"] = {0.1};
  write_file(dir / "s.json", s.dump());
  refused(run_possim("run s.json -q --engine analytic", dir, kTimeout), dir,
          "s.json: ps at 2048 nodes, 0.1 Gbit/s: push of layer 'fc' would take");
  // Under SimGrid the failing point ends the simulations under way: a point that takes
  // minutes (VGG19 at 32 nodes, every node and iteration simulated) is not waited for.
  json v = json::parse(R"({"name": "v", "model": "vgg19", "batch_per_gpu": 32, "iterations": 20,
    "cluster": {"nodes": [32, 65536], "nic_gbps": [10]}, "strategies": ["poseidon"]})");
  write_file(dir / "v.json", v.dump());
  const auto t0 = std::chrono::steady_clock::now();
  refused(run_possim("run v.json -q --all-iterations --jobs 2 --no-reduce", dir, kTimeout), dir,
          "v.json: poseidon at 65536 nodes, 10 Gbit/s: the SimGrid engine would simulate more than");
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));
}

TEST_CASE("single is one row per bandwidth whatever the node counts, with a note", "[cli]") {
  const auto dir = scratch("hostile", "single");
  json s = scenario();
  s["strategies"] = {"single", "ps"};
  s["cluster"]["nodes"] = {1, 4};
  write_file(dir / "s.json", s.dump());
  const Output o = run_possim("run s.json --engine analytic --out r", dir);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("note: single runs on one GPU of one node") != std::string::npos);
  std::ifstream f(dir / "r" / "results.json");
  const json j = json::parse(f);
  REQUIRE(j["results"].size() == 3);  // single once, ps at 1 and 4 nodes
  CHECK(j["results"][0]["strategy"] == "single");
  CHECK(j["results"][1]["strategy"] == "ps");
}

TEST_CASE("the analytic engine refuses what it cannot run and says what it approximates", "[cli]") {
  const auto dir = scratch("hostile", "caveat");
  const auto warnings = [&](const json& s, const std::string& engine) {
    write_file(dir / "s.json", s.dump());
    const Output o = run_possim("run s.json -q --engine " + engine, dir);
    REQUIRE(o.status == 0);
    // The analytic engine's imbalance line (analytic_may_differ) is about its points, not
    // the scenario's modelling: test_simgrid.cpp holds it.
    std::istringstream lines(o.err);
    std::string kept;
    for (std::string line; std::getline(lines, line);)
      if (line.find("the busiest node carries more") == std::string::npos) kept += line + "\n";
    return kept;
  };
  json s = scenario();
  CHECK(warnings(s, "analytic").empty());
  // Stragglers under SSP: workers drift apart, no representative worker stands for them.
  s["strategy_options"] = {{"consistency", "ssp"}, {"staleness", 2},
                           {"stragglers", {{"kind", "lognormal"}, {"sigma", 0.3}}}};
  s["cluster"]["gpus_per_node"] = 2;
  write_file(dir / "s.json", s.dump());
  const Output refused_run = run_possim("run s.json -q --engine analytic", dir);
  CHECK(refused_run.status == 2);
  CHECK(count_lines(refused_run.err) == 1);
  CHECK(refused_run.err.find("cannot run stragglers under SSP") != std::string::npos);
  CHECK(warnings(s, "simgrid").empty());
  // Several GPUs per node and SSP alone: modelled, nothing to say.
  s["strategy_options"].erase("stragglers");
  CHECK(warnings(s, "analytic").empty());
  // Stragglers under BSP: the slowest worker stands for all, and the run says so.
  s.erase("strategy_options");
  s["cluster"]["gpus_per_node"] = 1;
  s["strategy_options"] = {{"stragglers", {{"kind", "fixed"}, {"slowdown", {2.0}}}}};
  const std::string w = warnings(s, "analytic");
  CHECK(count_lines(w) == 1);
  CHECK(w.find("slowest worker") != std::string::npos);
  CHECK(w.find("fixed stragglers") != std::string::npos);
  write_file(dir / "s.json", s.dump());
  const Output e = run_possim("explain s.json --engine analytic", dir);
  CHECK(e.status == 0);
  CHECK(e.err.find("fixed stragglers") != std::string::npos);
}

TEST_CASE("calibrate fit: bad shard counts and repeated parameters exit 2: a fit possim's "
          "profile check rejects is a fit failure naming the parameter", "[cli][hostile][fit]") {
  const auto dir = scratch("hostile", "fit");
  // Iterations of half a minute: per_iteration_s runs to its upper bound (10 s), where the
  // profile's VGG19 throughput point leaves no time for layers.
  write_file(dir / "fast.csv",
        "model,strategy,nodes,nic_gbps,iteration_s\nalexnet,single,1,10,30\n"
        "alexnet,single,1,10,30\n");
  const std::string fit =
      "calibrate fit fast.csv --profile titanx_maxwell --engine analytic --out fitted.json -q ";
  for (const std::string bad : {"--shards 0", "--shards -2", "--free compute_scale,compute_scale",
                                "--free tcp_goodput,per_message_s,tcp_goodput", "--latency-us nan",
                                "--start compute_scale=inf"})
    refused(run_possim(fit + bad, dir, kTimeout), dir, bad.substr(0, bad.find(' ')));
  const Output o = run_possim(fit + "--free per_iteration_s", dir, kTimeout);
  INFO(o.err);
  CHECK(o.status == 1);
  CHECK(count_lines(o.err) == 1);
  CHECK(o.err.find("fit failed: per_iteration_s = 10") != std::string::npos);
  CHECK(o.err.find("fitted.json") == std::string::npos);  // the output file is not at fault
  CHECK_FALSE(fs::exists(dir / "fitted.json"));
  CHECK_FALSE(fs::exists(dir / "fitted.calibration.json"));
}

TEST_CASE("bad command lines of every command exit 2 with one line on stderr", "[cli][hostile]") {
  const auto dir = scratch("hostile", "cmdline");
  for (const std::string args :
       {"", "calibrate", "frobnicate", "models show", "calibrate frob",
        "calibrate exchange --workers 100000 --out x.json", "calibrate exchange --shards 0 --out x.json",
        "calibrate exchange --netns --rate-gbit inf --out x.json",
        "calibrate exchange --timeout nan --out x.json", "calibrate exchange --repeats 100000000 --out x.json",
        "calibrate kernels --model alexnet --batch 0 --out x.json", "run", "run s.json --jobs 0",
        "run s.json --jobs 100000", "explain s.json --nodes 1e3"}) {
    INFO(args);
    write_file(dir / "s.json", scenario().dump());
    const Output o = run_possim(args, dir, kTimeout);
    CHECK(o.status == 2);
    CHECK(count_lines(o.err) == 1);
    CHECK_FALSE(fs::exists(dir / "x.json"));
    CHECK_FALSE(fs::exists(dir / "results"));
  }
}
