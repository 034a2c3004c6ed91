// possim collective: one all-reduce alone, as NCCL-tests measures it. Held to the ring's
// hand calculation (launch, then 2(P-1) rounds of latency, message cost and S/P bytes at the
// transport's payload rate), both engines to each other, and the CLI to all_reduce_perf's
// own output format.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "model/input/error.hpp"
#include "model/input/scenario.hpp"
#include "model/plan/transport.hpp"
#include "model/run/collective_bench.hpp"
#include "model/run/engine_registry.hpp"
#include "support/run_possim.hpp"

using namespace possim;
namespace fs = std::filesystem;

namespace {

const std::string kRoot = POSSIM_SOURCE_DIR;

// P nodes of one GPU each on RDMA, the H100 profile with a launch cost set.
Scenario ring_cluster(int nodes, double launch_s) {
  Scenario s = parse_scenario(R"({"name": "ring", "model": "resnet50", "batch_per_gpu": 1,
      "cluster": {"nodes": )" + std::to_string(nodes) + R"(, "gpus_per_node": 1, "nic_gbps": 100,
                  "latency_s": 5e-6, "transport": "rdma"},
      "strategies": ["allreduce"], "profile": "h100"})",
                              "ring.json", kRoot + "/scenarios");
  Profile p = s.profile;
  p.collective_launch_s = launch_s;
  for (auto& [name, st] : p.stacks) st.params.erase("collective_launch_s");
  return with_profile(s, p);
}

std::unique_ptr<Engine> engine(const std::string& name, const Scenario& s) {
  EngineRequest q;
  q.quiet = true;
  q.scenario = &s;
  return make_engine(name, q);
}

}  // namespace

TEST_CASE("A ring all-reduce alone: its launch then 2(P-1) rounds of latency and S/P bytes", "[collective]") {
  for (int nodes : {2, 4, 8}) {
    const Scenario s = ring_cluster(nodes, 20e-6);
    const Profile& p = s.profile_for("allreduce");
    const double bytes = 64.0 * 1024 * 1024;
    const double payload = payload_bytes_per_s(100e9 / 8, transport_rates(p, s.cluster(nodes, 100)));
    const double round_s = s.latency_s + p.per_message_s + bytes / nodes / payload;
    const double hand = 20e-6 + 2 * (nodes - 1) * round_s;
    INFO(nodes << " nodes: payload " << payload << " B/s, per message " << p.per_message_s << " s");
    const double analytic = collective_time_s(s, "allreduce", nodes, 100, bytes, *engine("analytic", s));
    CHECK(analytic == Approx(hand).epsilon(1e-9));
    // The launch is in it: without it, exactly that much less.
    const Scenario no_launch = ring_cluster(nodes, 0);
    CHECK(collective_time_s(no_launch, "allreduce", nodes, 100, bytes, *engine("analytic", no_launch)) ==
          Approx(hand - 20e-6).epsilon(1e-9));
  }
}

TEST_CASE("Both engines time one collective alike", "[collective]") {
  const Scenario s = ring_cluster(4, 20e-6);
  for (const std::string strategy : {"allreduce", "tree_allreduce"})
    for (double bytes : {4096.0, 1048576.0, 268435456.0}) {
      INFO(strategy << " " << bytes << " B");
      const double a = collective_time_s(s, strategy, 4, 100, bytes, *engine("analytic", s));
      const double g = collective_time_s(s, strategy, 4, 100, bytes, *engine("simgrid", s));
      // The analytic engine times the double tree's pipelined rounds as a whole, not one
      // by one as SimGrid does (README, "The papers' figures"): within 10% there, 3% for the ring.
      CHECK(g == Approx(a).epsilon(strategy == "allreduce" ? 0.03 : 0.10));
    }
}

TEST_CASE("collective_scenario refuses what is not one collective of whole values", "[collective]") {
  const Scenario s = ring_cluster(2, 0);
  CHECK_THROWS_WITH(collective_scenario(s, "poseidon", 2, 100, 1024), Catch::Contains("not one collective"));
  CHECK_THROWS_WITH(collective_scenario(s, "allreduce", 2, 100, 6), Catch::Contains("multiple of 4 bytes"));
  CHECK_THROWS_WITH(collective_scenario(s, "allreduce", 2, 100, 0), Catch::Contains("--bytes"));
  const Scenario c = collective_scenario(s, "allreduce", 2, 100, 4096);
  REQUIRE(c.network.layers.size() == 1);
  CHECK(c.network.layers[0].weight_params == 1024);
  CHECK(c.network.total_fwd_flops() == 0);
  CHECK(c.profile_for("allreduce").per_iteration_s == 0);
}

TEST_CASE("possim collective prints all_reduce_perf's columns and compares with its output", "[collective][cli]") {
  const auto dir = test::scratch("collective", "cli");
  const std::string measured = kRoot + "/traces/measured/published/nccl_tests_h100_2x8_a3mega.txt";
  const std::string scenario = kRoot + "/scenarios/today/h100_resnet50_rails.json";
  const test::Output o = test::run_possim("collective '" + scenario + "' --strategy hier_allreduce --nodes 2 "
                                          "--nic-gbps 200 -q --compare '" + measured + "'",
                                          dir);
  INFO(o.out << o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("2 nodes x 8 GPUs (16 ranks)") != std::string::npos);
  CHECK(o.out.find("algbw x 1.8750") != std::string::npos);
  // One row per size all_reduce_perf measured, its measured time beside.
  CHECK(o.out.find("8589934592  2147483648  float") != std::string::npos);
  CHECK(o.out.find("47535.0") != std::string::npos);
  CHECK(o.out.find("31 sizes: mean |error| ") != std::string::npos);

  // Without --compare: the doubling range, all_reduce_perf's -b and -e.
  const test::Output r = test::run_possim("collective '" + scenario + "' --strategy allreduce --nodes 2 -q --bytes 1K:8K", dir);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  for (const char* size : {"\n1024 ", "\n2048 ", "\n4096 ", "\n8192 "}) CHECK(r.out.find(size) != std::string::npos);
  CHECK(r.out.find("16384") == std::string::npos);

  // Bad input: one line, exit 2.
  const std::vector<std::string> bad_args = {"--strategy hier_allreduce --nodes 3 --compare '" + measured + "'",  // 24 ranks
                                             "--strategy poseidon", "--strategy allreduce --bytes 8G:1K",
                                             "--strategy allreduce --bytes 12Q", "--strategy allreduce --compare /dev/null"};
  for (const std::string& bad : bad_args) {
    const test::Output b = test::run_possim("collective '" + scenario + "' -q " + bad, dir);
    INFO(bad << "\n" << b.err);
    CHECK(b.status == 2);
    CHECK(test::count_lines(b.err) == 1);
  }
}
