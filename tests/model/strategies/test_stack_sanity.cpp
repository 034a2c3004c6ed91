// Issue 28 item 6: a stack fitted on one model must not predict absurdities on another.
// Every stack a shipped profile carries runs, on the strategies it serves, on every paper
// scenario at one and two nodes: its one-node rate per GPU must be at least a third of one
// GPU's through the same framework, and its speedup must not fall from one node to two.
//
// One stack is held to a measurement instead of the third: stock TensorFlow r0.10's gRPC
// runtime does per-byte host work on every tensor it moves (runtime_copy_bytes_per_s, fitted
// on section 9's one Inception-V3 point at 250 MB/s), and a public microbenchmark of that
// path on the same TF version measured 161.6 MB/s between two processes on one machine
// (traces/measured/published/tf_grpc_transport.csv). Through it, one node of VGG19-22K
// (916 MB fetched and pushed) is indeed about 8x slower than one GPU. There the test
// asks that possim be no slower than the measured rate makes the fetch and the push in
// series, so a rate fitted lower than the stack's own microbenchmark still fails it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "model/input/scenario.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/sweep.hpp"

namespace fs = std::filesystem;
using namespace possim;

namespace {

const fs::path kRoot = fs::path(POSSIM_TESTS_DIR) / "..";

std::vector<fs::path> paper_scenarios() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(kRoot / "scenarios" / "paper"))
    if (e.path().extension() == ".json") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The r0.10 row's rate, bytes per second, from the committed microbenchmark file.
double tf_r010_grpc_bytes_per_s() {
  std::ifstream in(kRoot / "traces" / "measured" / "published" / "tf_grpc_transport.csv");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("tf_stock,0.10.0,", 0) == 0) {
      std::stringstream row(line);
      std::string cell;
      for (int i = 0; i < 4; ++i) std::getline(row, cell, ',');
      return std::stod(cell);
    }
  FAIL("traces/measured/published/tf_grpc_transport.csv has no tf_stock r0.10 row");
  return 0;
}

// (strategy, stack) pairs the shipped files run: each profile's defaults and every stack a
// paper scenario names for a strategy ("single" is the baseline, not a pair).
std::set<std::pair<std::string, std::string>> stack_pairs(const Scenario& s, const std::vector<fs::path>& files) {
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& [strategy, stack] : s.profile.default_stacks)
    if (strategy != "single") out.emplace(strategy, stack);
  for (const fs::path& f : files) {
    const nlohmann::json j = nlohmann::json::parse(read(f));
    if (j.contains("stacks"))
      for (const auto& [strategy, stack] : j["stacks"].items())
        if (strategy != "single" && s.profile.stacks.count(stack.get<std::string>()))
          out.emplace(strategy, stack.get<std::string>());
  }
  return out;
}

}  // namespace

TEST_CASE("every shipped stack on every paper scenario: one node at least a third of one GPU and two no slower than one",
          "[stacks]") {
  const std::vector<fs::path> files = paper_scenarios();
  REQUIRE(files.size() >= 15);
  const double grpc_bytes_per_s = tf_r010_grpc_bytes_per_s();
  REQUIRE(grpc_bytes_per_s > 1e8);
  std::size_t checked = 0, held_to_grpc = 0;
  for (const fs::path& f : files) {
    const Scenario shipped = load_scenario(f.string());
    for (const auto& [strategy, stack] : stack_pairs(shipped, files)) {
      nlohmann::json j = nlohmann::json::parse(read(f));
      j["cluster"]["nodes"] = {1, 2};
      j["cluster"]["nic_gbps"] = {shipped.nic_gbps.back()};
      j["strategies"] = {strategy};
      // The baseline runs through the same framework's single-GPU stack.
      const std::string framework = shipped.profile.stacks.at(stack).framework;
      j["stacks"] = {{strategy, stack}, {"single", framework}};
      j["iterations"] = 3;
      const Scenario s = parse_scenario(j.dump(), f.string(), f.parent_path().string());
      for (const char* engine : {"analytic", "simgrid"}) {
        EngineRequest q;
        q.scenario = &s;
        q.quiet = true;
        const std::vector<Result> r = run_sweep(s, *make_engine(engine, q), 1);
        REQUIRE(r.size() == 2);
        const Result& one = r[0];
        const Result& two = r[1];
        REQUIRE(one.cluster.nodes == 1);
        REQUIRE(two.cluster.nodes == 2);
        INFO(f.filename().string() << " (" << s.profile.name << ", " << s.model_ref << "), " << strategy << " on "
                                   << stack << ", " << engine << ": one node " << one.efficiency
                                   << " of one GPU's rate per GPU (" << one.iteration_s << " s against "
                                   << one.iteration_s * one.efficiency << " s), speedup " << one.speedup
                                   << " at one node and " << two.speedup << " at two");
        CHECK(two.speedup >= one.speedup);
        const double runtime_copy = s.profile_for(strategy).runtime_copy_bytes_per_s;
        if (one.efficiency >= 1.0 / 3 || runtime_copy == 0) {
          CHECK(one.efficiency >= 1.0 / 3);
        } else {
          // Every gradient fetched and pushed through the runtime at the measured rate, in
          // series with nothing hidden: the slowest the microbenchmark allows.
          double bytes = 0;
          for (const Layer& l : s.network.layers) bytes += double(l.params()) * 4;
          const double single_s = one.iteration_s * one.efficiency;
          const double slowest_s = single_s + 2 * bytes * s.gpus_per_node / grpc_bytes_per_s;
          INFO("held to TF r0.10's measured gRPC rate (" << grpc_bytes_per_s / 1e6 << " MB/s): at most "
                                                         << slowest_s << " s");
          CHECK(strategy == "tf_stock");
          CHECK(runtime_copy >= grpc_bytes_per_s);
          CHECK(one.iteration_s <= slowest_s);
          ++held_to_grpc;
        }
        ++checked;
      }
    }
  }
  // 18 paper scenarios x 11 pairs x 2 engines; 11 tf_stock points run below a third.
  CHECK(checked >= 18 * 11 * 2);
  CHECK(held_to_grpc >= 2);
}
