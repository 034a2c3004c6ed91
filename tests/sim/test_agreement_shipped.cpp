// Issue 29 item 2 over every shipped point: on each point of scenarios/paper/ and
// scenarios/today/, the analytic engine is within 3% of SimGrid or says it may not be
// (analytic_may_differ: `possim run` warns and `possim plan` reruns it on SimGrid).
// bench/results/analytic_agreement.md has the table. Both engines on 530 points take a few
// minutes of two cores, so ctest runs this test on its own entry, outside the sanitizer
// build (tests/CMakeLists.txt).
//
// The same SimGrid runs hold reports/today/README.md to the code: its tables were made by
// reports/today/make.sh (half an hour of two cores, too long for CI), and each of their
// rows must still say what SimGrid gives now, to the printed digits. A change to the model
// that moves a today point fails here until the report is made again.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "model/analytic/analytic_engine.hpp"
#include "model/input/scenario.hpp"
#include "model/input/text.hpp"
#include "model/run/engine_registry.hpp"
#include "model/plan/time_share.hpp"
#include "model/run/sweep.hpp"

namespace fs = std::filesystem;
using namespace possim;

namespace {

// reports/today/README.md's "Every point" tables: per "scenario strategy nodes Gbit/s",
// the row's cells by column header. Columns are two spaces or more apart (cli/table.cpp);
// a cell or header holds at most one space in a row ("95% interval", "iter s").
using ReportRows = std::map<std::string, std::map<std::string, std::string>>;

ReportRows today_report_rows(const fs::path& readme) {
  std::ifstream in(readme);
  REQUIRE(in.good());
  const std::regex gap(" {2,}");
  const auto cells = [&](const std::string& line) {
    std::vector<std::string> v;
    const std::string trimmed = line.substr(0, line.find_last_not_of(' ') + 1);
    for (std::sregex_token_iterator it(trimmed.begin(), trimmed.end(), gap, -1), end; it != end; ++it)
      if (!it->str().empty()) v.push_back(*it);
    return v;
  };
  ReportRows rows;
  std::string line, section;
  bool every_point = false;
  std::vector<std::string> head;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) every_point = line == "## Every point";
    if (!every_point) continue;
    if (line.rfind("### ", 0) == 0) section = line.substr(4), head.clear();
    else if (line.rfind("strategy ", 0) == 0) head = cells(line);
    else if (!head.empty() && !line.empty() && line[0] != '-' && line[0] != '`' && line[0] != ' ') {
      const std::vector<std::string> row = cells(line);
      if (row.size() != head.size()) {
        head.clear();  // the table has ended
        continue;
      }
      auto& r = rows[section + " " + row[0] + " " + row[1] + " " + row[2]];
      for (std::size_t c = 0; c < row.size(); ++c) r[head[c]] = row[c];
    }
  }
  return rows;
}

// The cells possim run prints for a result (cli/cmd_run.cpp's print_table, with the same
// formatters) that reports/today's rows have, compared by column name.
void check_report_row(const std::map<std::string, std::string>& row, const Result& r) {
  const auto cell = [&](const char* column) {
    const auto it = row.find(column);
    return it == row.end() ? std::string("(no column)") : it->second;
  };
  CHECK(cell("images/s") == fixed(r.images_per_s, 1));
  CHECK(cell("iter s") == fixed(r.iteration_s, 4));
  CHECK(cell("speedup") == fixed(r.speedup, 2) + "x");
  CHECK(cell("efficiency") == percent(r.efficiency));
  CHECK(cell("stall") == percent(r.stall_share()));
  for (std::size_t i = 0; i < kTimeShares; ++i) {
    const auto it = row.find(short_name(TimeShare(i)));
    if (it != row.end())
      CHECK(it->second == percent(r.iteration_s > 0 ? r.breakdown[TimeShare(i)] / r.iteration_s : 0));
  }
}

}  // namespace

TEST_CASE("every shipped paper and today point: the analytic engine within 3% of SimGrid or flagged and "
          "reports/today says what SimGrid gives now",
          "[agreement][simgrid]") {
  const fs::path root = fs::path(POSSIM_TESTS_DIR) / "..";
  const ReportRows report = today_report_rows(root / "reports" / "today" / "README.md");
  std::size_t report_rows = 0;
  std::vector<fs::path> files;
  for (const char* dir : {"paper", "today"})
    for (const auto& e : fs::directory_iterator(root / "scenarios" / dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 20);
  std::size_t points = 0, within = 0, flagged_outside = 0;
  double worst = 0;
  for (const fs::path& f : files)
    for (const Scenario& s : per_model(load_scenario(f.string()))) {
      EngineRequest q;
      q.scenario = &s;
      q.quiet = true;
      const std::vector<Result> a = run_sweep(s, *make_engine("analytic", q), 1);
      const std::vector<Result> g = run_sweep(s, *make_engine("simgrid", q), 2);
      REQUIRE(a.size() == g.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        const double error = a[i].iteration_s / g[i].iteration_s - 1;
        INFO(f.filename().string() << ": " << a[i].model << ", " << a[i].strategy << " at " << a[i].cluster.nodes << " x "
                                   << a[i].cluster.gpus_per_node << ", " << a[i].cluster.nic_gbps << " Gbit/s: analytic "
                                   << a[i].iteration_s << " s, SimGrid " << g[i].iteration_s << " s, busiest node "
                                   << a[i].traffic_imbalance() << " x the mean, GPU waits "
                                   << a[i].stall_share() * 100 << "%");
        REQUIRE(a[i].strategy == g[i].strategy);
        REQUIRE(a[i].cluster.nodes == g[i].cluster.nodes);
        REQUIRE(a[i].cluster.nic_gbps == g[i].cluster.nic_gbps);
        if (f.parent_path().filename() == "today") {
          const std::string key = f.stem().string() + " " + g[i].strategy + " " + std::to_string(g[i].cluster.nodes) +
                                  " " + fixed(g[i].cluster.nic_gbps, 1);
          INFO("reports/today/README.md, " << key << " (reports/today/make.sh makes it again)");
          const auto row = report.find(key);
          CHECK(row != report.end());
          if (row != report.end()) check_report_row(row->second, g[i]), ++report_rows;
        }
        ++points;
        worst = std::max(worst, std::abs(error));
        if (std::abs(error) <= 0.03) ++within;
        else {
          CHECK(analytic_may_differ(a[i]));
          if (analytic_may_differ(a[i])) ++flagged_outside;
        }
      }
    }
  std::cout << "analytic against SimGrid: " << points << " points, " << within << " within 3%, "
            << flagged_outside << " of the " << points - within << " outside flagged, worst " << worst * 100 << "%\n";
  CHECK(points >= 500);
  // Every row of the report was looked at: a scenario the report has no more (or a table
  // the parser missed) fails here.
  CHECK(report_rows == report.size());
  CHECK(report_rows >= 100);
}
