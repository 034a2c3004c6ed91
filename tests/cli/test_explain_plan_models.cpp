// Issue 29 item 7: explain on one node of several GPUs shows the plan's work, its columns
// carry units and are all explained; plan runs another zoo model at its paper batch and
// says so; "model" may be a list, run point by point for each model.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run_possim.hpp"

namespace fs = std::filesystem;

using possim::test::count_lines;
using possim::test::Output;
using possim::test::run_possim;
using possim::test::scratch;
using possim::test::slurp;
using possim::test::write_file;

namespace {

// The issue's point: VGG16 on one node of 8 V100s, Poseidon.
const char* kOneNodeEightGpus = R"({"name": "vgg16_v100x8", "model": "vgg16", "batch_per_gpu": 32,
  "cluster": {"nodes": [1], "gpus_per_node": 8, "nic_gbps": [10]},
  "strategies": ["poseidon"], "profile": "v100", "iterations": 3})";

// The explain table's row of a layer: its cells split on runs of two or more spaces.
std::string row_of(const std::string& out, const std::string& layer) {
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(layer + " ", 0) == 0) return line;
  return "";
}

}  // namespace

TEST_CASE("explain on one node of 8 GPUs shows the plan's gather, copies and apply, as run charges them", "[cli][explain]") {
  const auto dir = scratch("explain", "one_node");
  write_file(dir / "s.json", kOneNodeEightGpus);
  const Output e = run_possim("explain s.json --engine analytic", dir);
  INFO(e.out << e.err);
  REQUIRE(e.status == 0);
  CHECK(e.out.find("nothing to exchange") == std::string::npos);
  // A conv layer goes through the PS: gathered on the leader, copied to the host, applied
  // by the node's shard, pulled back and scattered to the other GPUs.
  const std::string conv = row_of(e.out, "conv1_1");
  REQUIRE(!conv.empty());
  for (const char* step : {"gather", "copy_d2h", "push", "apply", "pull", "copy_h2d", "scatter"}) {
    INFO(step);
    CHECK(conv.find(step) != std::string::npos);
  }
  // fc6 takes the PS at one node (no peer to send factors to), through the leader all the same.
  const std::string fc6 = row_of(e.out, "fc6");
  CHECK(fc6.find("gather") != std::string::npos);
  CHECK(fc6.find("scatter") != std::string::npos);
  CHECK(fc6.find("broadcast") == std::string::npos);  // no peer node to send to
  CHECK(fc6.find("8 GPUs still sync through the leader") != std::string::npos);

  // explain's stall is run's for the same point.
  const Output r = run_possim("run s.json --engine analytic --out out --quiet", dir);
  REQUIRE(r.status == 0);
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
  const double stall = j["results"][0]["stall_share"].get<double>();
  CHECK(stall > 0.1);  // the issue's run: ~37% on SimGrid
  std::ostringstream pct;
  pct.setf(std::ios::fixed);
  pct.precision(1);
  pct << "GPU stall " << stall * 100 << "%";
  CHECK(e.out.find(pct.str()) != std::string::npos);
}

TEST_CASE("explain on one node says no peer node to reduce with and shows no bytes of a collective",
          "[cli][explain]") {
  const auto dir = scratch("explain", "one_node_allreduce");
  write_file(dir / "s.json", R"({"name": "ar", "model": "vgg16", "batch_per_gpu": 32,
    "cluster": {"nodes": [1, 2], "gpus_per_node": 8, "nic_gbps": [10]},
    "strategies": ["allreduce"], "profile": "v100", "iterations": 3})");
  const Output one = run_possim("explain s.json --engine analytic --nodes 1", dir);
  INFO(one.out << one.err);
  REQUIRE(one.status == 0);
  CHECK(one.out.find("allreduce, 1 node x 8 GPU, 10.0 Gbit/s, batch 32/GPU, 1 server shard (") != std::string::npos);
  const std::string fc8 = row_of(one.out, "fc8");
  CHECK(fc8.find("one node: no peer node to reduce with") != std::string::npos);
  CHECK(fc8.find("8 GPUs still sync through the leader") != std::string::npos);
  CHECK(fc8.find("gather") != std::string::npos);
  CHECK(fc8.find("allreduce 16.4 MB") == std::string::npos);  // nothing crosses nodes
  CHECK(fc8.find("2(P-1)/P") == std::string::npos);
  // At two nodes the ring is back, with the tensor it reduces.
  const Output two = run_possim("explain s.json --engine analytic --nodes 2", dir);
  REQUIRE(two.status == 0);
  const std::string fc8_two = row_of(two.out, "fc8");
  CHECK(fc8_two.find("ring: 2(P-1)/P") != std::string::npos);
  CHECK(fc8_two.find("allreduce 16.4 MB") != std::string::npos);
}

TEST_CASE("explain's cost columns carry units and every column is explained under its table", "[cli][explain]") {
  const auto dir = scratch("explain", "legend");
  write_file(dir / "s.json", kOneNodeEightGpus);
  const Output e = run_possim("explain s.json --engine analytic", dir);
  REQUIRE(e.status == 0);
  CHECK(e.out.find("PS cost") == std::string::npos);
  for (const char* legend : {"PS params/node, SFB params/node = ", "sync start s, sync end s = ",
                             "sync steps (plan) = ", "total ms = ", "other = ", "GPU stall = "}) {
    INFO(legend);
    CHECK(e.out.find(legend) != std::string::npos);
  }
  // Every column of the layer table, read from its header (cells apart by two spaces or
  // more), is named in the legend line under it: "NAME = " or "NAME, " (a pair said at once).
  std::istringstream in(e.out);
  std::string header, legend;
  for (std::string line; std::getline(in, line);) {
    if (header.empty() && line.rfind("layer ", 0) == 0) header = line;
    if (legend.empty() && line.rfind("layer, kind = ", 0) == 0) legend = line;
  }
  REQUIRE(!header.empty());
  REQUIRE(!legend.empty());
  std::vector<std::string> columns;
  for (std::size_t at = 0; at < header.size();) {
    const std::size_t gap = header.find("  ", at);
    columns.push_back(header.substr(at, gap - at));
    if (gap == std::string::npos) break;
    at = header.find_first_not_of(' ', gap);
  }
  CHECK(columns.size() == 10);
  for (const std::string& c : columns) {
    INFO(c);
    CHECK((legend.find(c + " = ") != std::string::npos || legend.find(c + ", ") != std::string::npos));
  }
  const Output r = run_possim("run s.json --engine analytic --out out", dir);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("stall = ") != std::string::npos);
}

TEST_CASE("plan --models runs another zoo model at its paper batch and says which batch", "[cli][plan]") {
  const auto dir = scratch("plan", "batch");
  write_file(dir / "s.json", R"({"name": "p", "model": "vgg19", "batch_per_gpu": 64,
    "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["allreduce"], "iterations": 2})");
  const std::string common = "plan s.json --engine analytic --no-interval --grid 10,100 --quiet --json -";
  Output o = run_possim(common + " --models vgg19,resnet50,googlenet", dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  nlohmann::json j = nlohmann::json::parse(o.out.substr(o.out.find("\n{") + 1));
  std::map<std::string, int> batch;
  for (const auto& a : j["answers"]) batch[a["model"].get<std::string>()] = a["batch_per_gpu"].get<int>();
  CHECK(batch["vgg19"] == 64);       // the scenario's own model, at the scenario's batch
  CHECK(batch["resnet50"] == 32);    // the zoo's paper batch
  CHECK(batch["googlenet"] == 128);
  REQUIRE(j["models"].size() == 3);
  CHECK(j["models"][1]["batch_source"].get<std::string>().find("paper batch") != std::string::npos);
  CHECK(o.err.find("resnet50 at batch 32/GPU (its paper batch") != std::string::npos);
  CHECK(o.err.find("googlenet at batch 128/GPU") != std::string::npos);
  // --batch wins for every model.
  o = run_possim(common + " --models vgg19,resnet50 --batch 16", dir);
  REQUIRE(o.status == 0);
  j = nlohmann::json::parse(o.out.substr(o.out.find("\n{") + 1));
  for (const auto& a : j["answers"]) CHECK(a["batch_per_gpu"].get<int>() == 16);
  CHECK(o.err.find("resnet50 at batch 16/GPU (--batch)") != std::string::npos);
  o = run_possim(common + " --batch 0", dir);
  CHECK(o.status == 2);
  CHECK(count_lines(o.err) == 1);
}

TEST_CASE("a scenario's model list runs every point for each model, and one-model commands refuse it", "[cli][scenario]") {
  const auto dir = scratch("cli", "model_list");
  write_file(dir / "s.json", R"({"name": "two", "model": ["vgg19", "resnet50"], "batch_per_gpu": 16,
    "cluster": {"nodes": [1, 2], "nic_gbps": [10]}, "strategies": ["poseidon"], "iterations": 2})");
  const Output o = run_possim("run s.json --engine analytic --out out", dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("two: vgg19") != std::string::npos);  // a table per model
  CHECK(o.out.find("two: resnet50") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
  REQUIRE(j["results"].size() == 4);
  const std::vector<std::string> order = {"vgg19", "vgg19", "resnet50", "resnet50"};
  for (std::size_t i = 0; i < 4; ++i) CHECK(j["results"][i]["model"] == order[i]);
  CHECK(j["model"] == nlohmann::json::array({"vgg19", "resnet50"}));
  CHECK(j["provenance"]["model"].size() == 2);
  const std::string csv = slurp(dir / "out" / "results.csv");
  CHECK(csv.find("\nvgg19,poseidon,") != std::string::npos);
  CHECK(csv.find("\nresnet50,poseidon,") != std::string::npos);
  // The same points as one run per model: each model's speedup against its own baseline.
  write_file(dir / "r.json", R"({"name": "one", "model": "resnet50", "batch_per_gpu": 16,
    "cluster": {"nodes": [1, 2], "nic_gbps": [10]}, "strategies": ["poseidon"], "iterations": 2})");
  REQUIRE(run_possim("run r.json --engine analytic --out one --quiet", dir).status == 0);
  const nlohmann::json k = nlohmann::json::parse(slurp(dir / "one" / "results.json"));
  CHECK(k["results"][1]["speedup"] == j["results"][3]["speedup"]);

  // A sweep over the same base: the list is an axis.
  write_file(dir / "sweep.json", R"({"name": "sw", "base": "s.json"})");
  const Output sw = run_possim("sweep sweep.json --engine analytic --out sw", dir);
  INFO(sw.err);
  REQUIRE(sw.status == 0);
  const nlohmann::json w = nlohmann::json::parse(slurp(dir / "sw" / "results.json"));
  CHECK(w["results"].size() == 4);

  // A command that answers for one model says so, exit 2, one line naming the file and field.
  for (const std::string cmd : {"explain s.json", "plan-dump s.json", "run s.json --engine live --out l"}) {
    const Output bad = run_possim(cmd, dir);
    INFO(cmd << ": " << bad.err);
    CHECK(bad.status == 2);
    CHECK(count_lines(bad.err) == 1);
    CHECK(bad.err.find("s.json: model: is a list of 2 models") != std::string::npos);
  }
}

TEST_CASE("plan --engine analytic runs on SimGrid the points where a node carries more than the mean, unless --analytic-only", "[cli][plan]") {
  // GoogLeNet on 16 nodes, WFBP and Poseidon (bench/scenarios/plan16.json): the shards holding
  // its larger slices carry more than the mean node, which the analytic engine's
  // representative node stands for.
  const auto dir = scratch("plan", "fallback");
  const fs::path scenario = fs::path(POSSIM_TESTS_DIR) / ".." / "bench" / "scenarios" / "plan16.json";
  const std::string common = "plan '" + scenario.string() + "' --models googlenet --no-interval --quiet --json -";
  const auto answers = [&](const std::string& engine, std::string* err) {
    const Output o = run_possim(common + " " + engine, dir);
    INFO(o.err);
    REQUIRE(o.status == 0);
    *err = o.err;
    const nlohmann::json j = nlohmann::json::parse(o.out.substr(o.out.find("\n{") + 1));
    std::map<std::string, double> gbps;
    for (const auto& a : j["answers"])
      gbps[a["strategy"].get<std::string>()] = a["nic_gbps"].get<double>();
    return gbps;
  };
  std::string sim_err, fallback_err, only_err;
  const auto sim = answers("--engine simgrid", &sim_err);
  const auto fallback = answers("--engine analytic", &fallback_err);
  const auto only = answers("--engine analytic --analytic-only", &only_err);
  CHECK(fallback_err.find("plan ran those points on SimGrid instead") != std::string::npos);
  CHECK(only_err.find("the busiest node carries more") != std::string::npos);
  CHECK(only_err.find("on SimGrid instead") == std::string::npos);
  // WFBP: the analytic engine alone asks more than SimGrid (2.69 against 2.38 Gbit/s); with
  // the fallback, SimGrid's answer (to 1e-4: the search's points where the GPU waits under
  // 1% of the iteration are not flagged and stay analytic).
  CHECK(fallback.at("wfbp") == Approx(sim.at("wfbp")).epsilon(1e-4));
  CHECK(std::abs(only.at("wfbp") / sim.at("wfbp") - 1) > 0.05);
}
