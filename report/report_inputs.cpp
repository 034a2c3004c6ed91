#include "report/report_inputs.hpp"

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"
#include "model/run/result_io.hpp"

namespace possim::report {

namespace {

using nlohmann::json;

// Sweep values beside those a Result carries, as "kv_pair_bytes=1048576, seed=2": each a
// number (the axes a sweep can vary there are numbers).
std::string extra_values(const json& point, const json_check::Reader& r, const std::string& at) {
  std::string out;
  for (const auto& item : point.items()) {
    const std::string& k = item.key();
    if (k == "strategy_options.kv_pair_bytes" || k == "strategy_options.staleness" || k == "seed" ||
        k == "cluster.servers.shards") {
      if (!item.value().is_number() && !(item.value().is_string() && is_label_text(item.value().get<std::string>())))
        r.fail(json_check::join(at, k), json_check::describe(item.value()) + " is not a value of this axis",
               "a number, or a name");
      out += (out.empty() ? "" : ", ") + k.substr(k.rfind('.') + 1) + "=" + item.value().dump();
    }
  }
  return out;
}

}  // namespace

void add_results_text(const std::string& text, const std::string& path, ReportInputs& in) {
  const json_check::Reader r(path);
  const json j = r.parse(text, "a results.json of possim run or sweep");
  r.object(j, "", "a results.json object");
  ResultsFile f;
  f.path = path;
  const std::string name_key = j.contains("sweep") ? "sweep" : "scenario";
  f.name = r.label(r.require(j, "", name_key.c_str(), "the scenario's name"), name_key, limits::kMaxLabelChars, "a name");
  if (j.contains("provenance")) f.provenance = r.object(j["provenance"], "provenance", "an object");
  const json& results = r.array(r.require(j, "", "results", "a list of results"), "results", "a list of results");
  if (results.size() > limits::kMaxSweepPoints)
    r.fail("results", "has " + std::to_string(results.size()) + " results",
           "at most " + std::to_string(limits::kMaxSweepPoints));
  std::vector<ReportPoint> points;
  std::set<std::string> engines;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string at = json_check::index("results", i);
    ReportPoint p;
    p.file = in.files.size();
    p.result = result_from_json(results[i], r, at);
    check_derived_rates(results[i], p.result, r, at);
    if (results[i].contains("point"))
      p.extra = extra_values(r.object(results[i]["point"], at + ".point", "an object"), r, at + ".point");
    engines.insert(p.result.engine);
    points.push_back(std::move(p));
  }
  // All or nothing: a file that fails adds none of its points.
  in.engines.insert(engines.begin(), engines.end());
  for (auto& p : points) in.points.push_back(std::move(p));
  in.files.push_back(std::move(f));
}

ReportInputs read_report_inputs(const std::vector<std::string>& results_paths) {
  ReportInputs in;
  for (const auto& path : results_paths)
    add_results_text(read_input_file(path, "results file", "a results.json of possim run or sweep",
                                     limits::kMaxPointsFileBytes),
                     path, in);
  return in;
}

}  // namespace possim::report
