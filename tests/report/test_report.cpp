// possim report (issue 12): one self-contained HTML page, an inline SVG per figure and a PNG,
// gnuplot script and data beside each; captions carry the results' provenance.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "model/run/version.hpp"
#include "support/run_possim.hpp"

namespace fs = std::filesystem;
using possim::test::run_command;
using possim::test::run_possim;
using possim::test::scratch;
using possim::test::slurp;

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = 0; (at = s.find(what, at)) != std::string::npos; at += what.size()) ++n;
  return n;
}

}  // namespace

TEST_CASE("possim report: an inline SVG per figure, PNGs beside, no external URL", "[report][cli]") {
  const auto dir = scratch("report", "small");
  std::ofstream(dir / "s.json") << R"({"name": "small", "model": "cifar10_quick", "batch_per_gpu": 100,
    "cluster": {"nodes": [1, 2, 4], "nic_gbps": [10, 40]}, "strategies": ["ps", "poseidon", "adam"],
    "iterations": 2})";
  std::ofstream(dir / "sweep.json") << R"({"name": "kv", "base": "s.json",
    "axes": {"strategy_options.kv_pair_bytes": [65536, 2097152], "cluster.nic_gbps": 10, "strategies": "ps"}})";
  // One point with a prediction among the results, one without.
  std::ofstream(dir / "measured.csv") << "model,strategy,nodes,nic_gbps,batch,images_per_s\n"
                                         "cifar10_quick,poseidon,4,10,100,50000\n"
                                         "cifar10_quick,poseidon,64,10,100,90000\n";
  REQUIRE(run_possim("run s.json --engine analytic -q", dir).status == 0);
  REQUIRE(run_possim("sweep sweep.json --engine analytic -q", dir).status == 0);
  const auto o = run_possim("report results/small/analytic/results.json results/kv/analytic/results.json "
                            "--measured measured.csv --out rep",
                            dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  const std::string html = slurp(dir / "rep" / "index.html");

  // One <svg> per figure, and its PNG, script and data beside the page.
  std::vector<std::string> ids;
  const std::regex figure_id("<figure id=\"([a-z0-9-]+)\">");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), figure_id); it != std::sregex_iterator(); ++it)
    ids.push_back((*it)[1]);
  CHECK(count(html, "<svg") == ids.size());
  CHECK(count(html, "</svg>") == ids.size());
  for (const char* kind : {"-speedup", "-bandwidth", "-traffic", "-layers", "-measured", "-time", "-time-nodes", "-min-bandwidth"})
    CHECK(std::any_of(ids.begin(), ids.end(), [&](const std::string& id) { return id.find(kind) != std::string::npos; }));
  for (const auto& id : ids) {
    INFO(id);
    const std::string png = slurp(dir / "rep" / (id + ".png"));
    REQUIRE(png.size() > 1000);
    CHECK(png.substr(1, 3) == "PNG");
    CHECK(fs::exists(dir / "rep" / (id + ".gp")));
    CHECK(fs::exists(dir / "rep" / (id + ".dat")));
    CHECK(html.find("href=\"" + id + ".png\"") != std::string::npos);
  }
  // Least-bandwidth bars: per strategy and node count, the slowest swept speed reaching 90%
  // ("not reached" where none does).
  const auto results = nlohmann::json::parse(slurp(dir / "results/small/analytic/results.json")).at("results");
  std::string bars;
  for (const auto& id : ids)
    if (id.find("-min-bandwidth") != std::string::npos) bars += slurp(dir / "rep" / (id + ".dat"));
  for (const char* strategy : {"ps", "poseidon", "adam"}) {
    // One scenario in the figure: no "[small]" after the strategy.
    std::string want = strategy;
    for (int nodes : {2, 4}) {
      double least = 0;
      for (const auto& r : results)
        if (r.at("strategy") == strategy && r.at("nodes") == nodes && r.at("scaling_efficiency").get<double>() >= 0.9 &&
            (least == 0 || r.at("nic_gbps").get<double>() < least))
          least = r.at("nic_gbps").get<double>();
      want += "\t" + (least > 0 ? std::to_string(int(least)) : std::string("not reached"));
    }
    INFO(bars);
    CHECK(bars.find(want + "\n") != std::string::npos);
  }
  // The script draws its figure again where it lies.
  CHECK(run_command("gnuplot " + ids.front() + ".gp", dir / "rep").status == 0);
  // titanx_maxwell is a fitted profile: the run's line figures draw each point's 95%
  // interval, its bounds beside it in the data (the sweep's, which has none, do not).
  for (const char* kind : {"-speedup", "-bandwidth"}) {
    int with_bars = 0;
    for (const auto& id : ids) {
      if (id.size() < std::string(kind).size() || id.compare(id.size() - std::string(kind).size(), std::string::npos, kind) != 0)
        continue;
      const bool bars = slurp(dir / "rep" / (id + ".gp")).find("with yerrorbars") != std::string::npos;
      CHECK(bars == (slurp(dir / "rep" / (id + ".dat")).find("# x\ty\tlo\thi") != std::string::npos));
      with_bars += bars ? 1 : 0;
    }
    INFO(kind);
    CHECK(with_bars > 0);
  }
  CHECK(html.find("Error bars: 95% intervals") != std::string::npos);

  // Self-contained: nothing fetched. The SVG namespace names are names, not fetched.
  const std::string fetched = std::regex_replace(html, std::regex("xmlns(:xlink)?=\"[^\"]*\""), "");
  CHECK(fetched.find("http") == std::string::npos);
  CHECK(fetched.find("<script") == std::string::npos);
  CHECK(fetched.find("<link") == std::string::npos);
  CHECK(fetched.find("<img") == std::string::npos);
  CHECK(fetched.find("@import") == std::string::npos);

  // Captions say how each figure was made.
  CHECK(count(html, std::string("possim ") + possim::possim_version() + ", analytic engine, ") >= ids.size());
  CHECK(html.find("scenario s.json (sha256 ") != std::string::npos);
  CHECK(html.find("sweep sweep.json (sha256 ") != std::string::npos);
  CHECK(html.find("profile titanx_maxwell (sha256 ") != std::string::npos);
  // Measured points with their errors; the one without a prediction is said to have none.
  CHECK(html.find("measured.csv:2") != std::string::npos);
  CHECK(html.find("no prediction among the results") != std::string::npos);
}

TEST_CASE("possim report: bad input exits 2 with one line, writes nothing", "[report][cli]") {
  const auto dir = scratch("report", "bad");
  std::ofstream(dir / "not_results.json") << R"({"name": "x"})";
  std::ofstream(dir / "broken.json") << R"({"scenario": "x", "results": [{"model": "m"}]})";
  for (const std::string args : {"report", "report not_results.json", "report broken.json", "report /nonexistent.json",
                                 "report . --out rep", "report broken.json --max-figures 0"}) {
    const auto o = run_possim(args, dir);
    INFO(args << ": " << o.err);
    CHECK(o.status == 2);
    CHECK(count(o.err, "\n") == 1);
  }
  CHECK_FALSE(fs::exists(dir / "rep"));
  CHECK_FALSE(fs::exists(dir / "reports"));
}
