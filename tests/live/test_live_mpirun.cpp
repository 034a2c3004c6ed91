// The live engine under a real mpirun: every rank runs the same command, only rank 0 reads
// the scenario's points; the others serve the plans it sends (a rank sits out a point with
// fewer nodes than ranks) and end when it says the run is over.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>

#include "support/run_possim.hpp"

namespace fs = std::filesystem;
using namespace possim::test;


TEST_CASE("possim run --engine live under mpirun -np 2: rank 0 writes every point while rank 1 serves and ends",
          "[live][mpi][cli]") {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    WARN("mpirun not found: the mpirun test is skipped (setup.sh installs openmpi-bin)");
    return;
  }
  const auto dir = scratch("live", "mpirun");
  // One node (rank 1 sits it out), then two: PS over loopback, a small model.
  write_file(dir / "s.json", R"({"name": "m", "model": "alexnet", "batch_per_gpu": 32,
    "cluster": {"nodes": [1, 2], "nic_gbps": [10]}, "strategies": ["ps"], "iterations": 3,
    "live": {"network_scale": 20, "links": "loopback"}})");
  const std::string root = ::getuid() == 0 ? " --allow-run-as-root" : "";
  const int port = free_loopback_port();
  const auto o = run_command("mpirun -np 2 --oversubscribe" + root + " '" + possim_binary() +
                                 "' run s.json --engine live --coordinator 127.0.0.1:" + std::to_string(port) +
                                 " --out r -q",
                             dir, 300);
  INFO(o.out << o.err);
  REQUIRE(o.status == 0);
  const std::string csv = slurp(dir / "r" / "results.csv");
  CHECK(count_lines(csv) == 3);  // the header and both points
}
