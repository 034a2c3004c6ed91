// The possim binary as a user meets it: exit codes, one-line errors, files written.
#include <catch2/catch.hpp>

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/run_possim.hpp"

namespace fs = std::filesystem;

using possim::test::Output;
using possim::test::run_possim;
using possim::test::scratch;

namespace {

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const std::string kScenario = std::string(POSSIM_SOURCE_DIR) + "/scenarios/vgg19_10gbe.json";

}  // namespace

TEST_CASE("every broken scenario exits 2 with one line naming the file", "[cli]") {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(POSSIM_TESTS_DIR) / "scenarios_bad")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind('_', 0) == 0) continue;  // helper files (e.g. a bad profile) start with _
    const auto dir = scratch("cli", "bad");
    const Output o = run_possim("run '" + entry.path().string() + "' --quiet", dir);
    INFO(name << ": " << o.err);
    CHECK(o.status == 2);
    CHECK(lines(o.err) == 1);
    // The file at fault: the scenario, or a profile or model it names.
    CHECK(o.err.find("scenarios_bad/") != std::string::npos);
    CHECK(o.out.empty());
    CHECK_FALSE(fs::exists(dir / "results"));  // nothing half-written
    fs::remove_all(dir);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("a missing scenario file and bad command lines exit 2", "[cli]") {
  Output o = run_possim("run /nonexistent/scenario.json");
  CHECK(o.status == 2);
  CHECK(o.err.find("/nonexistent/scenario.json") != std::string::npos);
  o = run_possim("run");
  CHECK(o.status == 2);
  o = run_possim("run " + kScenario + " --engine warp");
  CHECK(o.status == 2);
  CHECK(o.err.find("warp") != std::string::npos);
  o = run_possim("frobnicate");
  CHECK(o.status == 2);
  o = run_possim("run --help");
  CHECK(o.status == 0);
  CHECK(o.out.find("--engine") != std::string::npos);
}

TEST_CASE("possim run writes JSON and CSV that agree with the table", "[cli]") {
  const auto dir = scratch("cli", "run");
  const Output o = run_possim("run " + kScenario + " --out out", dir);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("poseidon") != std::string::npos);
  std::ifstream f(dir / "out" / "results.json");
  REQUIRE(f.good());
  const nlohmann::json j = nlohmann::json::parse(f);
  // 4 strategies x 6 node counts x 1 bandwidth.
  REQUIRE(j["results"].size() == 24);
  for (const auto& r : j["results"]) {
    CHECK(r["images_per_s"].get<double>() > 0);
    CHECK(r["images_per_s"].get<double>() ==
          Approx(32.0 * r["nodes"].get<int>() / r["iteration_s"].get<double>()));
  }
  std::ifstream csv(dir / "out" / "results.csv");
  int rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  CHECK(rows == 25);
  // Same scenario, same seed: the same bytes.
  const Output again = run_possim("run " + kScenario + " --out out2 --quiet", dir);
  REQUIRE(again.status == 0);
  std::ifstream a(dir / "out" / "results.csv"), b(dir / "out2" / "results.csv");
  const std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
  CHECK(sa == sb);
}

TEST_CASE("explain VGG19 at 8 nodes: SFB for fc6, fc7, fc8 and PS for every conv", "[cli]") {
  const Output o = run_possim("explain " + kScenario + " --nodes 8");
  REQUIRE(o.status == 0);
  int convs = 0, fcs = 0;
  std::istringstream in(o.out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string layer, kind, params, scheme;
    words >> layer >> kind >> params >> scheme;
    if (kind == "conv") {
      ++convs;
      CHECK(scheme == "ps");
    } else if (kind == "fc") {
      ++fcs;
      INFO(line);
      CHECK(scheme == "sfb");
    }
  }
  CHECK(convs == 16);
  CHECK(fcs == 3);
}

TEST_CASE("a model written by `models show --json` runs as a user's own model", "[cli]") {
  const auto dir = scratch("cli", "models");
  const Output shown = run_possim("models show vgg19 --json", dir);
  REQUIRE(shown.status == 0);
  std::ofstream(dir / "mine.json") << shown.out;
  std::ofstream(dir / "s.json") << R"({"name": "mine", "model": "mine.json", "batch_per_gpu": 32,
    "cluster": {"nodes": [8], "nic_gbps": [10]}, "strategies": ["poseidon"]})";
  std::ofstream(dir / "z.json") << R"({"name": "zoo", "model": "vgg19", "batch_per_gpu": 32,
    "cluster": {"nodes": [8], "nic_gbps": [10]}, "strategies": ["poseidon"]})";
  const Output a = run_possim("run s.json --out a --quiet", dir);
  const Output b = run_possim("run z.json --out b --quiet", dir);
  REQUIRE(a.status == 0);
  REQUIRE(b.status == 0);
  std::ifstream fa(dir / "a" / "results.json"), fb(dir / "b" / "results.json");
  const auto ja = nlohmann::json::parse(fa), jb = nlohmann::json::parse(fb);
  // The file carries the zoo's name, so even the throughput-scaled compute agrees.
  CHECK(ja["results"][0]["iteration_s"] == jb["results"][0]["iteration_s"]);
  const Output listing = run_possim("models");
  CHECK(listing.status == 0);
  for (const char* m : {"alexnet", "cifar10_quick", "googlenet", "inception_v3", "vgg16", "vgg19",
                        "vgg19_22k", "resnet50", "resnet152"})
    CHECK(listing.out.find(m) != std::string::npos);
}

TEST_CASE("possim run says when iterations repeated: --all-iterations simulates each", "[cli]") {
  const auto dir = scratch("cli", "repeats");
  std::ifstream in(kScenario);
  nlohmann::json s = nlohmann::json::parse(in);
  s["name"] = "repeats";
  s["cluster"]["nodes"] = {4};
  s["strategies"] = {"ps", "poseidon"};
  s["iterations"] = 4;
  std::ofstream(dir / "s.json") << s.dump();
  const Output reused = run_possim("run s.json --out a --engine simgrid", dir);
  const Output full = run_possim("run s.json --out b --engine simgrid --all-iterations", dir);
  REQUIRE(reused.status == 0);
  REQUIRE(full.status == 0);
  CHECK(reused.out.find("2 of 2 points: iterations repeated exactly after the first 2 of 4") != std::string::npos);
  CHECK(full.out.find("repeated") == std::string::npos);
  std::ifstream fa(dir / "a" / "results.json"), fb(dir / "b" / "results.json");
  const nlohmann::json a = nlohmann::json::parse(fa), b = nlohmann::json::parse(fb);
  REQUIRE(a["results"].size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(a["results"][i]["simulated_iterations"] == 2);
    CHECK(b["results"][i]["simulated_iterations"] == 4);
    CHECK(a["results"][i]["iteration_s"].get<double>() ==
          Approx(b["results"][i]["iteration_s"].get<double>()).epsilon(1e-9));
  }
}

TEST_CASE("possim run folds a symmetric cluster from 32 nodes, says so, and --no-reduce / --reduce "
          "choose", "[cli][fold]") {
  const auto dir = scratch("cli", "fold");
  const auto scenario = [&](const char* name, const char* stragglers) {
    std::ofstream(dir / name) << R"({"name": "fold", "model": "vgg19", "batch_per_gpu": 32,
      "cluster": {"nodes": [32], "gpus_per_node": 1, "nic_gbps": [10, 40], "latency_s": 50e-6,
                  "servers": {"shards": "per_node", "placement": "dedicated"}},
      "strategies": ["ps"],
      "strategy_options": {"kv_pair_bytes": 2097152, "consistency": "bsp", "staleness": 0,
                           "best_scheme": "atc17", "stragglers": )"
                              << stragglers << R"(},
      "profile": "titanx_maxwell", "iterations": 3, "seed": 1})";
  };
  scenario("s.json", R"({"kind": "none", "drop_after": 0})");
  scenario("slow.json", R"({"kind": "lognormal", "sigma": 0.1, "drop_after": 0})");
  const auto result = [&](const char* out) {
    std::ifstream f(dir / out / "results.json");
    return nlohmann::json::parse(f)["results"][0];
  };
  const Output folded = run_possim("run s.json --out a --quiet", dir);
  REQUIRE(folded.status == 0);
  const std::string notice = "ps at 32 nodes: worker 0 simulated for all 32";
  const std::size_t at = folded.err.find(notice);
  CHECK(at != std::string::npos);
  CHECK(folded.err.find(notice, at + 1) == std::string::npos);  // once for both bandwidths
  const Output full = run_possim("run s.json --out b --quiet --no-reduce", dir);
  REQUIRE(full.status == 0);
  CHECK(full.err.find("worker 0") == std::string::npos);
  CHECK(result("a")["reduced_to_nodes"] == 33);  // worker 0 and the 32 servers
  CHECK(result("b")["reduced_to_nodes"] == 0);
  CHECK(result("a")["iteration_s"].get<double>() == Approx(result("b")["iteration_s"].get<double>()).epsilon(0.005));
  std::ifstream csv(dir / "a" / "results.csv");
  std::string header;
  std::getline(csv, header);
  CHECK(header.find(",reduced_to_nodes") != std::string::npos);
  // Stragglers: automatic runs every node; asked for, the folding is refused in one line.
  const Output slow = run_possim("run slow.json --out c --quiet", dir);
  CHECK(slow.status == 0);
  CHECK(result("c")["reduced_to_nodes"] == 0);
  const Output refused = run_possim("run slow.json --out d --quiet --reduce", dir);
  CHECK(refused.status == 2);
  CHECK(refused.err.find("stragglers") != std::string::npos);
  CHECK(lines(refused.err) == 1);
}

TEST_CASE("possim maps SimGrid only to run it, from its module, and names a module it cannot open",
          "[cli][engines]") {
  const std::string bin = possim::test::possim_binary();
  // The executable that opens the module links none of SimGrid's libraries itself.
  const std::string host = POSSIM_STATIC_CLI ? (std::filesystem::path(bin).parent_path() / "possim-modules").string() : bin;
  const Output libs = possim::test::run_command("ldd '" + host + "'", std::filesystem::temp_directory_path());
  REQUIRE(libs.status == 0);
  CHECK(libs.out.find("libsimgrid") == std::string::npos);
  CHECK(libs.out.find("libns3") == std::string::npos);
  const auto dir = scratch("cli", "module");
  std::ofstream(dir / "s.json") << R"({"name": "m", "model": "googlenet", "batch_per_gpu": 32,
    "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["allreduce"], "iterations": 2,
    "profile": "titanx_maxwell"})";
  // The analytic engine runs without the module; SimGrid names the module it could not open.
  const std::string broken = "POSSIM_SIMGRID_MODULE=/nonexistent/libpossim_simgrid.so '" + bin + "' ";
  CHECK(possim::test::run_command(broken + "run s.json --engine analytic -q --out a", dir).status == 0);
  const Output sim = possim::test::run_command(broken + "run s.json -q --out s", dir);
  CHECK(sim.status != 0);
  CHECK(sim.err.find("cannot load the SimGrid engine from /nonexistent/libpossim_simgrid.so") != std::string::npos);
  // A module built from other sources than this program: refused by name, never called.
  const Output foreign = possim::test::run_command(
      "POSSIM_SIMGRID_MODULE='" + std::string(POSSIM_FOREIGN_MODULE) + "' '" + bin + "' run s.json -q --out f", dir);
  CHECK(foreign.status != 0);
  CHECK(foreign.err.find("was built from other sources than this program") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "f" / "results.csv"));
  // With the module: the SimGrid run works.
  CHECK(run_possim("run s.json -q --out s", dir).status == 0);
}

#if POSSIM_STATIC_CLI
TEST_CASE("possim is linked statically and restarts as possim-modules to open a module", "[cli][engines]") {
  const std::string bin = possim::test::possim_binary();
  // No program interpreter: the dynamic loader never runs, no shared object is mapped.
  std::ifstream elf(bin, std::ios::binary);
  Elf64_Ehdr eh{};
  REQUIRE(elf.read(reinterpret_cast<char*>(&eh), sizeof eh));
  REQUIRE(std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0);
  int interpreters = 0, loads = 0;
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    elf.seekg(std::streamoff(eh.e_phoff + std::uint64_t(i) * eh.e_phentsize));
    REQUIRE(elf.read(reinterpret_cast<char*>(&ph), sizeof ph));
    interpreters += ph.p_type == PT_INTERP;
    loads += ph.p_type == PT_LOAD;
  }
  CHECK(interpreters == 0);
  CHECK(loads > 0);
  const auto dir = scratch("cli", "static");
  std::ofstream(dir / "s.json") << R"({"name": "m", "model": "googlenet", "batch_per_gpu": 32,
    "cluster": {"nodes": [2, 4], "nic_gbps": [10]}, "strategies": ["poseidon", "allreduce"], "iterations": 2,
    "profile": "titanx_maxwell"})";
  // The SimGrid run restarted from possim is the one possim-modules makes, byte for byte.
  const std::string twin = (std::filesystem::path(bin).parent_path() / "possim-modules").string();
  REQUIRE(run_possim("run s.json -q --no-interval --out a", dir).status == 0);
  REQUIRE(possim::test::run_command("'" + twin + "' run s.json -q --no-interval --out b", dir).status == 0);
  const std::string restarted = possim::test::slurp(dir / "a" / "results.csv");
  CHECK(restarted.find(",simgrid,") != std::string::npos);
  CHECK(restarted == possim::test::slurp(dir / "b" / "results.csv"));
  // Live nodes forked from possim open the GPU backend: the command restarts before it
  // forks them, so a node never starts the whole command over (which its coordinator saw as
  // the node closing its control connection). Without a device, the node says so.
  std::ofstream(dir / "k.json") << R"({"name": "k", "model": "cifar10_quick", "batch_per_gpu": 8,
    "cluster": {"nodes": 2, "nic_gbps": 1}, "strategies": ["ps"], "profile": "titanx_maxwell", "iterations": 2,
    "live": {"compute": "kernels"}})";
  const Output gpu = run_possim("run k.json --engine live -q --out k", dir);
  CHECK(gpu.err.find("closed its control connection") == std::string::npos);
  CHECK((gpu.status == 0 || gpu.err.find("the gpu kernel backend cannot run") != std::string::npos));
  // possim alone, without possim-modules beside it: the analytic engine answers; SimGrid is
  // refused in one line naming what is missing, and nothing is written.
  std::filesystem::create_directories(dir / "lone");
  std::filesystem::copy_file(bin, dir / "lone" / "possim");
  const std::string lone = "'" + (dir / "lone" / "possim").string() + "' ";
  CHECK(possim::test::run_command(lone + "run s.json -q --engine analytic --out c", dir).status == 0);
  const Output refused = possim::test::run_command(lone + "run s.json -q --out d", dir);
  CHECK(refused.status == 1);
  CHECK(refused.err.find("the SimGrid engine runs in possim-modules") != std::string::npos);
  CHECK(refused.err.find((dir / "lone" / "possim-modules").string() + " cannot be run") != std::string::npos);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "d"));
  // A statically linked possim in possim-modules' place is refused, not restarted for ever.
  std::filesystem::copy_file(bin, dir / "lone" / "possim-modules");
  const Output again = possim::test::run_command(lone + "run s.json -q --out e", dir);
  CHECK(again.status == 1);
  CHECK(again.err.find("is a statically linked possim again") != std::string::npos);
}
#endif
