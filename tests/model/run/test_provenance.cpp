// Provenance: possim --version, the hashes results.json records, and one results folder per
// engine (issue 12).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "model/input/sha256.hpp"
#include "model/run/version.hpp"
#include "support/run_possim.hpp"

namespace fs = std::filesystem;

using possim::test::run_possim;
using possim::test::scratch;
using possim::test::slurp;

TEST_CASE("sha256 of the FIPS 180-2 test vectors", "[provenance]") {
  CHECK(possim::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(possim::sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the length no longer fits the first padding block.
  CHECK(possim::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(possim::sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("possim --version prints the commit the build was made from", "[provenance][cli]") {
  const auto o = run_possim("--version");
  CHECK(o.status == 0);
  CHECK(o.out == std::string("possim ") + possim::possim_version() + "\n");
  CHECK(std::string(possim::possim_version()).size() > 0);
  // Refreshed at every build (cmake/version.cmake), not only when cmake configured: a build
  // after a commit records that commit. (Outside a git checkout the version is "unknown".)
  const auto dir = scratch("provenance", "version");
  const auto head = possim::test::run_command("git describe --always", fs::path(POSSIM_TESTS_DIR) / "..", 0, dir);
  INFO("git describe: " << head.out << head.err << "(a build before the last commit fails here: rebuild)");
  if (head.status == 0 && !head.out.empty())
    CHECK(std::string(possim::possim_version()).rfind(head.out.substr(0, head.out.find('\n')), 0) == 0);
  else
    CHECK(std::string(possim::possim_version()) == "unknown");
}

TEST_CASE("each engine writes its own results folder, with the provenance of its numbers",
          "[provenance][cli]") {
  const auto dir = scratch("provenance", "engines");
  const std::string scenario = R"({"name": "tiny", "model": "cifar10_quick", "batch_per_gpu": 100,
    "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["poseidon"], "iterations": 2, "seed": 7})";
  std::ofstream(dir / "tiny.json") << scenario;
  REQUIRE(run_possim("run tiny.json -q --engine analytic", dir).status == 0);
  REQUIRE(run_possim("run tiny.json -q --engine simgrid", dir).status == 0);
  for (const char* engine : {"analytic", "simgrid"}) {
    INFO(engine);
    const fs::path results = dir / "results" / "tiny" / engine / "results.json";
    REQUIRE(fs::exists(results));
    const auto j = nlohmann::json::parse(slurp(results));
    const auto& p = j.at("provenance");
    CHECK(p.at("engine") == engine);
    CHECK(j.at("results").at(0).at("engine") == engine);
    CHECK(p.at("hash") == "sha256");
    CHECK(p.at("possim_version") == possim::possim_version());
    CHECK(p.at("seed") == 7);
    CHECK(p.at("scenario").at("path") == "tiny.json");
    CHECK(p.at("scenario").at("sha256") == possim::sha256_hex(scenario));
    CHECK(p.at("model").at("name") == "cifar10_quick");
    CHECK(p.at("model").at("sha256").is_null());  // a zoo model: the version names it
    const std::string profile_path = p.at("profile").at("path");
    CHECK(p.at("profile").at("name") == "titanx_maxwell");
    CHECK(p.at("profile").at("sha256") == possim::sha256_hex(slurp(profile_path)));
  }
  // --out still decides.
  REQUIRE(run_possim("run tiny.json -q --engine analytic --out elsewhere", dir).status == 0);
  CHECK(fs::exists(dir / "elsewhere" / "results.json"));
}

TEST_CASE("a layer JSON model is recorded with the hash of its bytes", "[provenance][cli]") {
  const auto dir = scratch("provenance", "layer_json");
  const auto shown = run_possim("models show cifar10_quick --json", dir);
  REQUIRE(shown.status == 0);
  std::ofstream(dir / "mine.json") << shown.out;
  std::ofstream(dir / "s.json") << R"({"name": "mine", "model": "mine.json", "batch_per_gpu": 100,
    "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["wfbp"], "iterations": 2})";
  REQUIRE(run_possim("run s.json -q --engine analytic --out o", dir).status == 0);
  const auto j = nlohmann::json::parse(slurp(dir / "o" / "results.json"));
  CHECK(j.at("provenance").at("model").at("ref") == "mine.json");
  CHECK(j.at("provenance").at("model").at("sha256") == possim::sha256_hex(shown.out));
}
