// Reading NCCL-tests' all_reduce_perf output: the published file whole, and every way a
// hand-edited or foreign file is refused with its line named.
#include <catch2/catch.hpp>
#include <string>

#include "model/input/error.hpp"
#include "model/input/nccl_tests.hpp"
#include "support/run_possim.hpp"

using namespace possim;

namespace {

const std::string kFile = std::string(POSSIM_SOURCE_DIR) + "/traces/measured/published/nccl_tests_h100_2x8_a3mega.txt";

// A minimal output of two ranks: its head, then `rows`.
std::string two_ranks(const std::string& rows) {
  return "# /opt/nccl-tests/build/all_reduce_perf -b 8 -e 16 -f 2 -g 1\n"
         "#  Rank  0 Group  0 Pid 1 on a device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
         "#  Rank  1 Group  0 Pid 2 on b device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n" +
         rows;
}

}  // namespace

TEST_CASE("The published all_reduce_perf output reads whole", "[nccl-tests]") {
  const NcclTestsFile f = load_nccl_tests(kFile);
  CHECK(f.ranks == 16);
  REQUIRE(f.rows.size() == 31);
  CHECK(f.rows.front().bytes == 8);
  CHECK(f.rows.front().count == 2);
  CHECK(f.rows.front().type == "float");
  CHECK(f.rows.front().time_s == Approx(135.8e-6));
  CHECK(f.rows.back().bytes == 8589934592.0);
  CHECK(f.rows.back().time_s == Approx(47535e-6));
  CHECK(f.rows.back().busbw_bytes_per_s == Approx(338.82e9));
  CHECK(allreduce_bus_factor(16) == Approx(1.875));
  CHECK(allreduce_bus_factor(1) == 1);
}

TEST_CASE("A row that is not as all_reduce_perf printed it is refused with its line", "[nccl-tests]") {
  const std::string good = "  1024   256  float  sum  -1  100.0  0.01  0.01  0  100.0  0.01  0.01  0\n";
  CHECK(parse_nccl_tests(two_ranks(good), "x.txt").rows.size() == 1);
  auto fails = [](const std::string& text, const std::string& part) {
    INFO(text);
    try {
      (void)parse_nccl_tests(text, "x.txt");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(part) != std::string::npos);
    }
  };
  fails(two_ranks("  1024   256  float  sum  -1  10.0  0.01  0.01  0  100.0  0.01  0.01  0\n"), "x.txt:4: algbw");
  fails(two_ranks("  1024   256  float  sum  -1  100.0  0.01  0.05  0  100.0  0.01  0.01  0\n"), "x.txt:4: busbw");
  fails(two_ranks("  1024   255  float  sum  -1  100.0  0.01  0.01  0  100.0  0.01  0.01  0\n"), "x.txt:4: size");
  fails(two_ranks("  1024   256  quad  sum  -1  100.0  0.01  0.01  0  100.0  0.01  0.01  0\n"), "x.txt:4: type");
  fails(two_ranks("  1024   256  float  sum  0  100.0  0.01  0.01  0  100.0  0.01  0.01  0\n"), "x.txt:4: root");
  fails(two_ranks("  1024   256  float  sum  -1  -5  0.01  0.01  0  100.0  0.01  0.01  0\n"), "x.txt:4: time");
  fails(two_ranks("  1024   256  float  sum  -1  nan  0.01  0.01  0  100.0  0.01  0.01  0\n"), "x.txt:4: time");
  fails(two_ranks("  1024   256  float  sum  -1  100.0\n"), "x.txt:4: a row of 6 fields");
  fails(two_ranks("  1e99   256  float  sum  -1  100.0  0.01  0.01  0  100.0  0.01  0.01  0\n"), "x.txt:4: size");
  fails(two_ranks(""), "has no rows");
  fails("#  Rank  0 Group\n" + good, "all_reduce_perf");
  fails("# all_reduce_perf\n" + good, "Rank");
}

TEST_CASE("possim collective --compare refuses a FIFO, a folder and a foreign file", "[nccl-tests][cli]") {
  const auto dir = test::scratch("nccl", "files");
  test::write_file(dir / "reduce.txt", "# reduce_scatter_perf\n#  Rank  0 Group\n 8 2 float sum -1 10.0 0.00 0.00 0\n");
  REQUIRE(std::system(("mkfifo '" + (dir / "fifo").string() + "'").c_str()) == 0);
  const std::string scenario = std::string(POSSIM_SOURCE_DIR) + "/scenarios/today/h100_resnet50_rails.json";
  for (const std::string bad : {"fifo", ".", "reduce.txt", "missing.txt"}) {
    const test::Output o =
        test::run_possim("collective '" + scenario + "' --strategy allreduce -q --compare " + bad, dir, 20);
    INFO(bad << "\n" << o.err);
    CHECK(o.status == 2);
    CHECK(test::count_lines(o.err) == 1);
  }
}
