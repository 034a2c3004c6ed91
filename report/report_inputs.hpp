// What a report is made from: results.json files of `possim run` or `possim sweep`, each
// with its provenance, and optionally measured points (the files `possim validate` reads).
#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "model/input/measurements.hpp"
#include "model/run/result.hpp"

namespace possim::report {

struct ResultsFile {
  std::string path;
  std::string name;           // the scenario's or the sweep's
  nlohmann::json provenance;  // as results.json has it (null in files written before it)
};

// One result, with the file it came from and the sweep values that results do not show
// (kv_pair_bytes, staleness, seed: "" for a run), which tell otherwise equal points apart.
struct ReportPoint {
  Result result;
  std::size_t file = 0;
  std::string extra;
};

struct ReportInputs {
  std::vector<ResultsFile> files;
  std::vector<ReportPoint> points;
  std::set<std::string> engines;       // of all points
  MeasurementSet measured;  // empty without measurement files
};

// Reads and checks each results file (regular file within limits, JSON within the nesting
// bound, every result as possim writes them): one InputError naming the file and the field.
// `measured` is left empty (the command reads measurement files as `possim validate` does).
ReportInputs read_report_inputs(const std::vector<std::string>& results_paths);
// One results file's text, checked as read_report_inputs does, added to `in` (nothing of
// it when it fails). `path` names it in messages.
void add_results_text(const std::string& text, const std::string& path, ReportInputs& in);

}  // namespace possim::report
