// Signals and waits (issue 31): every command that forks ends its children on SIGINT and
// SIGTERM and exits 130 or 143; a child never outlives possim, even one killed with
// SIGKILL; every wait has a limit (rank 0 of an mpirun sweep whose other ranks never come).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>

#include "support/processes.hpp"
#include "support/run_possim.hpp"

namespace fs = std::filesystem;
using possim::test::group_members;
using possim::test::run_possim;
using possim::test::scratch;
using possim::test::slurp;
using possim::test::start_possim;

namespace {

// possim validate on a point whose SimGrid simulation takes seconds (VGG19, WFBP, 512
// nodes, every node simulated), started in its own process group; returns once a
// simulation child exists.
pid_t start_long_validate(const fs::path& dir, std::set<pid_t>& children) {
  // The double tree never folds (sim/fold.hpp): 128 nodes take seconds node by node.
  std::ofstream(dir / "m.csv") << "model,strategy,nodes,nic_gbps,iteration_s\nvgg19,tree_allreduce,128,10,1.0\n";
  const pid_t pid = start_possim(dir, {"validate", "m.csv", "--profile", "titanx_maxwell"});
  REQUIRE(pid > 0);
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (pid_t c : group_members(pid, pid)) children.insert(c);
    if (!children.empty() && std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(500)) break;
  }
  REQUIRE_FALSE(children.empty());
  return pid;
}

// Waits for every process of `pid`'s group to be gone (at most `limit`), then kills what
// is left so that a failing test leaves nothing; returns what was left.
std::set<pid_t> left_after(pid_t pid, std::chrono::seconds limit) {
  const auto t0 = std::chrono::steady_clock::now();
  while (!group_members(pid, -1).empty() && std::chrono::steady_clock::now() - t0 < limit)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::set<pid_t> left = group_members(pid, -1);
  for (pid_t p : left) kill(p, SIGKILL);
  return left;
}

}  // namespace

TEST_CASE("SIGINT and SIGTERM to possim validate end its simulation and exit 130 or 143", "[cli][interrupt]") {
  for (const auto& [sig, expected] : {std::pair<int, int>{SIGTERM, 143}, {SIGINT, 130}}) {
    const auto dir = scratch("processes", "validate_" + std::to_string(sig));
    std::set<pid_t> children;
    const pid_t pid = start_long_validate(dir, children);
    REQUIRE(kill(pid, sig) == 0);
    double took = 0;
    bool exited = false;
    const int status = possim::test::wait_bounded(pid, std::chrono::seconds(10), took, exited);
    INFO("signal " << sig << ", stderr: " << slurp(dir / "err.txt"));
    CHECK(exited);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == expected);
    CHECK(left_after(pid, std::chrono::seconds(2)).empty());
    fs::remove_all(dir);
  }
}

TEST_CASE("a simulation dies with possim, even when possim is killed with SIGKILL", "[cli][interrupt]") {
  const auto dir = scratch("processes", "sigkill");
  std::set<pid_t> children;
  const pid_t pid = start_long_validate(dir, children);
  REQUIRE(kill(pid, SIGKILL) == 0);
  double took = 0;
  bool exited = false;
  possim::test::wait_bounded(pid, std::chrono::seconds(10), took, exited);
  CHECK(exited);
  // No handler ran; the kernel ends the child (PR_SET_PDEATHSIG), not left to spin.
  CHECK(left_after(pid, std::chrono::seconds(3)).empty());
}

TEST_CASE("rank 0 of an mpirun sweep does not wait for ever for a rank that never comes", "[cli][hostile]") {
  const auto dir = scratch("processes", "gather");
  std::ofstream(dir / "base.json") << R"({"name": "g", "model": "alexnet", "batch_per_gpu": 16,
    "cluster": {"nodes": [2], "nic_gbps": [1, 10]}, "strategies": ["ps"], "iterations": 2})";
  std::ofstream(dir / "sweep.json") << R"({"name": "g", "base": "base.json", "axes": {"cluster.nic_gbps": [1, 10]}})";
  const auto o = possim::test::run_command(
      "env OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 '" + possim::test::possim_binary() +
          "' sweep sweep.json --engine analytic --out out --gather-timeout 2 -q",
      dir, 60);
  INFO(o.err);
  CHECK(o.status == 1);  // not 124: the wait ended by itself
  CHECK(o.err.find("rank 0 waited 2 s for rank 1's points") != std::string::npos);
  // What rank 0 finished is kept for a rerun or a merge.
  CHECK(fs::exists(dir / "out" / "shard-0-of-2" / "points.jsonl"));
  CHECK(run_possim("sweep sweep.json --engine analytic --out out --gather-timeout 0 -q", dir, 60).status == 2);
}
