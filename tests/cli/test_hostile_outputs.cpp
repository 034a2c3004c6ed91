// Where possim writes (issue 31): only regular files, only where asked. A target that is a
// device, a FIFO, a folder or a symlink is refused before the work, never replaced and
// never written through; a results folder holding such a file is not committed into.
// Device nodes are made with mknod in a private temporary folder (never the machine's
// /dev), which needs root: without it those checks are skipped, saying so.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/run/output_file.hpp"
#include "support/run_possim.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using possim::test::Output;
using possim::test::run_possim;
using possim::test::scratch;
using possim::test::slurp;

namespace {

constexpr int kTimeout = 60;

using possim::test::count_lines;
using possim::test::write_file;

json small_scenario() {
  return json::parse(R"({"name": "h", "model": "alexnet", "batch_per_gpu": 16,
    "cluster": {"nodes": [1, 2], "nic_gbps": [10]}, "strategies": ["ps"], "iterations": 2})");
}

// The targets a hostile or careless --json/--out may name, made in `dir`: a character
// device (root only: /dev/null's numbers), a FIFO, a symlink to a file that must not
// appear, and a folder. Returns the names made.
std::vector<std::string> hostile_targets(const fs::path& dir) {
  std::vector<std::string> names;
  if (::geteuid() == 0 && ::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0)
    names.push_back("null");
  else
    WARN("not root: the character-device target is not tried");
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
  names.push_back("fifo");
  fs::create_symlink(dir / "victim", dir / "link");
  names.push_back("link");
  fs::create_directory(dir / "folder");
  names.push_back("folder");
  return names;
}

// Each target is as it was: the device a device of the same numbers, the FIFO a FIFO, the
// link a link whose target does not exist, the folder an empty folder.
void untouched(const fs::path& dir) {
  struct stat st {};
  if (::lstat((dir / "null").c_str(), &st) == 0) {
    CHECK(S_ISCHR(st.st_mode));
    CHECK(st.st_rdev == makedev(1, 3));
  }
  REQUIRE(::lstat((dir / "fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(fs::is_symlink(dir / "link"));
  CHECK_FALSE(fs::exists(dir / "victim"));
  CHECK(fs::is_empty(dir / "folder"));
  // No temporary file left beside them.
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
}

void refused(const Output& o, const std::string& what) {
  INFO("stdout: " << o.out.substr(0, 500) << "\nstderr: " << o.err.substr(0, 2000));
  CHECK(o.status == 2);
  CHECK(count_lines(o.err) == 1);
  CHECK(o.err.find(what) != std::string::npos);
}

}  // namespace

TEST_CASE("plan, validate, fit and derive never replace or write through a device, FIFO, symlink or folder",
          "[cli][hostile]") {
  const auto dir = scratch("outputs", "targets");
  const std::vector<std::string> targets = hostile_targets(dir);
  write_file(dir / "s.json", small_scenario().dump());
  write_file(dir / "m.csv", "model,strategy,nodes,nic_gbps,iteration_s\nalexnet,ps,2,10,0.5\n");
  for (const std::string& t : targets) {
    INFO(t);
    // Refused before the work: nothing runs (no progress, no table), nothing is written.
    Output o = run_possim("plan s.json --engine analytic --nodes 2 --json " + t, dir, kTimeout);
    refused(o, "--json: '" + t + "' is ");
    CHECK(o.err.find("points") == std::string::npos);
    refused(run_possim("validate m.csv --engine analytic --json " + t, dir, kTimeout), "--json: '" + t + "' is ");
    refused(run_possim("calibrate fit m.csv --profile titanx_maxwell --free tcp_goodput --out " + t, dir, kTimeout),
            "--out: '" + t + "' is ");
    refused(run_possim("profile derive --from titanx_maxwell --device v100 --out " + t, dir, kTimeout),
            "--out: '" + t + "' is ");
    untouched(dir);
  }
  // calibrate fit writes a second file beside its profile: that one is checked first too.
  fs::create_symlink(dir / "victim", dir / "fit.calibration.json");
  refused(run_possim("calibrate fit m.csv --profile titanx_maxwell --free tcp_goodput --out fit.json", dir, kTimeout),
          "fit.calibration.json");
  CHECK_FALSE(fs::exists(dir / "fit.json"));
  CHECK_FALSE(fs::exists(dir / "victim"));
  // Under a file: refused before the fit runs, nothing left.
  refused(run_possim("calibrate fit m.csv --profile titanx_maxwell --free tcp_goodput --out s.json/fit.json", dir,
                     kTimeout),
          "which is not a folder");
}

TEST_CASE("write_file_atomic refuses what is not a regular file and replaces what is", "[hostile]") {
  const auto dir = scratch("outputs", "atomic");
  hostile_targets(dir);
  for (const char* t : {"null", "fifo", "link", "folder"}) {
    if (!fs::exists(fs::symlink_status(dir / t))) continue;
    INFO(t);
    CHECK_THROWS_WITH(possim::write_file_atomic((dir / t).string(), "x", "--json"),
                      Catch::Contains("--json") && Catch::Contains("not a regular file"));
  }
  untouched(dir);
  possim::write_file_atomic((dir / "new" / "file.json").string(), "one");
  possim::write_file_atomic((dir / "new" / "file.json").string(), "two");
  CHECK(slurp(dir / "new" / "file.json") == "two");
  CHECK(std::distance(fs::directory_iterator(dir / "new"), fs::directory_iterator()) == 1);
}

TEST_CASE("a sweep never appends through a symlinked points.jsonl", "[cli][hostile]") {
  const auto dir = scratch("outputs", "points");
  write_file(dir / "base.json", small_scenario().dump());
  write_file(dir / "sweep.json", R"({"name": "sw", "base": "base.json", "axes": {"cluster.nodes": [2]}})");
  write_file(dir / "victim", "precious\n");
  fs::create_directories(dir / "sw");
  fs::create_symlink(dir / "victim", dir / "sw" / "points.jsonl");
  refused(run_possim("sweep sweep.json -q --engine analytic --out sw", dir, kTimeout), "points.jsonl: is a symlink");
  CHECK(slurp(dir / "victim") == "precious\n");
  // A FIFO in its place neither blocks the sweep nor is read.
  fs::remove(dir / "sw" / "points.jsonl");
  REQUIRE(::mkfifo((dir / "sw" / "points.jsonl").c_str(), 0600) == 0);
  refused(run_possim("sweep sweep.json -q --engine analytic --out sw", dir, 20), "points.jsonl: is a FIFO");
}

TEST_CASE("a results folder that is a symlink, or holds a device or link where results go, is refused",
          "[cli][hostile]") {
  const auto dir = scratch("outputs", "folder");
  write_file(dir / "s.json", small_scenario().dump());
  fs::create_directory(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "out");
  refused(run_possim("run s.json -q --engine analytic --out out", dir, kTimeout), "--out: 'out' is a symlink");
  CHECK(fs::is_empty(dir / "elsewhere"));
  // A folder whose results.csv is a symlink (a shared results tree): nothing is renamed in.
  fs::create_directory(dir / "res");
  fs::create_symlink(dir / "victim", dir / "res" / "results.csv");
  refused(run_possim("run s.json -q --engine analytic --out res", dir, kTimeout), "results.csv' is a symlink");
  CHECK_FALSE(fs::exists(dir / "victim"));
  CHECK_FALSE(fs::exists(dir / "res" / "results.json"));
  // No temporary folder left beside it.
  for (const auto& e : fs::directory_iterator(dir)) CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
}

TEST_CASE("output to a full device is an error, not exit 0", "[cli][hostile]") {
  if (!fs::exists("/dev/full")) {
    WARN("no /dev/full here");
    return;
  }
  const auto dir = scratch("outputs", "full");
  for (const char* args : {"models", "--version", "models show alexnet --json", "run --help"}) {
    INFO(args);
    const Output o = run_possim(std::string(args) + " >/dev/full", dir, kTimeout);
    CHECK(o.status == 1);
    CHECK(o.err.find("cannot write to standard output") != std::string::npos);
  }
}

TEST_CASE("an empty --out or --json is an error, not the default folder or no file", "[cli][hostile]") {
  const auto dir = scratch("outputs", "empty");
  write_file(dir / "s.json", small_scenario().dump());
  write_file(dir / "m.csv", "model,strategy,nodes,nic_gbps,iteration_s\nalexnet,ps,2,10,0.5\n");
  REQUIRE(run_possim("run s.json -q --engine analytic --out r", dir, kTimeout).status == 0);
  refused(run_possim("run s.json -q --engine analytic --out ''", dir, kTimeout), "--out: is empty");
  refused(run_possim("report r/results.json -q --out ''", dir, kTimeout), "--out: is empty");
  refused(run_possim("plan s.json --engine analytic --nodes 2 --json ''", dir, kTimeout), "--json: is empty");
  refused(run_possim("validate m.csv --engine analytic --json ''", dir, kTimeout), "--json: is empty");
  CHECK_FALSE(fs::exists(dir / "results"));
  CHECK_FALSE(fs::exists(dir / "reports"));
  // An option only one engine understands is an error with another, not ignored.
  refused(run_possim("run s.json -q --engine analytic --coordinator 10.0.0.1:7000", dir, kTimeout), "--coordinator");
}
