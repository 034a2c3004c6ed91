#include "model/input/measurements.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/input/csv_reader.hpp"
#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/layer_json.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"
#include "model/input/strategy_names.hpp"

namespace possim {

namespace {

using nlohmann::json;

// `s` with each run of line breaks (CR, LF, CRLF) and the blanks around it as one space.
std::string one_line(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] != '\n' && s[i] != '\r') {
      out += s[i++];
      continue;
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
    while (i < s.size() && (s[i] == '\n' || s[i] == '\r' || s[i] == ' ' || s[i] == '\t')) ++i;
    if (!out.empty() && i < s.size()) out += ' ';
  }
  return out;
}

const std::vector<std::string> kRequired = {"model", "strategy", "nodes", "nic_gbps"};
// One of these is the measurement (the first present wins).
const std::vector<std::string> kMeasures = {"iteration_s", "images_per_s", "speedup"};
const std::vector<std::string> kOptional = {"iteration_s", "images_per_s", "speedup",
                                            "reference_images_per_s", "batch", "gpus_per_node",
                                            "stack", "profile", "source", "precision"};
// Columns of possim's own results.csv that a measurement file may carry and that are
// ignored (batch_per_gpu is read as batch).
const std::vector<std::string> kResultColumns = {
    "engine", "latency_s", "server_shards", "batch_per_gpu", "scaling_efficiency",
    "gpu_busy_s", "gpu_stall_s", "stall_share", "sent_bytes_per_node_max",
    "received_bytes_per_node_max", "sent_bytes_per_node_mean", "received_bytes_per_node_mean",
    "iteration_s_lo", "iteration_s_hi", "images_per_s_lo", "images_per_s_hi", "speedup_lo", "speedup_hi"};
const std::vector<std::string> kText = {"model", "strategy", "stack", "profile", "source", "precision"};

constexpr long long kMaxBatch = limits::kMaxBatchPerGpu;  // as a scenario's batch_per_gpu
// A measured figure (seconds, images/s, a speedup) beyond this is a typo; an iteration
// shorter than a microsecond is not a training step.
constexpr double kMaxMeasured = 1e12, kMinIterationS = 1e-6;

std::string known_list() {
  std::string s = json_check::list(kRequired);
  for (const auto& k : kOptional) s += ", " + k + " (optional)";
  return s;
}

bool in(const std::vector<std::string>& list, const std::string& k) {
  return std::find(list.begin(), list.end(), k) != list.end();
}

bool known(const std::string& k) {
  return in(kRequired, k) || in(kOptional, k) || in(kResultColumns, k);
}

std::string strategies() { return json_check::list(strategy_names()); }

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// Field checks shared by CSV (text values) and JSON (typed values, converted to text).
struct Checker {
  std::string where;   // "FILE:LINE" or "FILE"
  std::string prefix;  // "" for CSV, "points[3]." for JSON

  [[noreturn]] void fail(const std::string& field, const std::string& problem,
                         const std::string& expected) const {
    throw InputError(where, prefix + field, problem, expected);
  }
  // A decimal number (no hex, no inf or nan: model/input/text.hpp) in [lo, hi] (lo
  // excluded when lo_open).
  double number(const std::string& field, const std::string& text, double lo, double hi, bool lo_open) const {
    const std::string range = std::string(lo_open ? "(" : "[") + g(lo) + ", " + g(hi) + "]";
    if (text.empty()) fail(field, "is empty", "a number in " + range);
    const std::optional<double> v = parse_decimal(text);
    if (!v) fail(field, "'" + json_check::quoted(text) + "' is not a number", "a decimal number in " + range);
    if (lo == 0 && lo_open && *v <= 0) fail(field, "'" + json_check::quoted(text) + "' is not positive", "a number in " + range);
    if ((lo_open ? *v <= lo : *v < lo) || *v > hi)
      fail(field, "'" + json_check::quoted(text) + "' is out of range", "a number in " + range);
    return *v;
  }
  static std::string g(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
  }
  int integer(const std::string& field, const std::string& text, long long max) const {
    const std::string whole = "an integer in [1, " + std::to_string(max) + "]";
    if (text.empty()) fail(field, "is empty", whole);
    const std::optional<double> parsed = parse_decimal(text);
    if (!parsed) fail(field, "'" + json_check::quoted(text) + "' is not a number", whole);
    const double v = *parsed;
    if (v != std::floor(v) || v < 1 || v > double(max))
      fail(field, "'" + json_check::quoted(text) + "' is not a whole number in [1, " + std::to_string(max) + "]",
           whole);
    return int(v);
  }
};

void fill(MeasurementPoint& p, const std::map<std::string, std::string>& f, const Checker& c,
          const std::string& base_dir, MeasurementSet& set) {
  for (const auto& k : kRequired)
    if (!f.count(k)) c.fail(k, "missing", "every point to give " + known_list());
  p.model = f.at("model");
  if (p.model.empty()) c.fail("model", "is empty", "a zoo model name or a layer JSON path");
  if (!set.networks.count(p.model)) {
    try {
      set.networks.emplace(p.model, load_network(p.model, base_dir));
    } catch (const InputError& e) {
      c.fail("model", std::string("cannot load '") + json_check::quoted(p.model) + "': " + e.what(),
             "a zoo model name or a layer JSON path");
    } catch (const std::exception& e) {
      c.fail("model", "unknown model '" + json_check::quoted(p.model) + "'", "a zoo model name or a layer JSON path");
    }
  }
  p.strategy = f.at("strategy");
  if (!is_strategy(p.strategy))
    c.fail("strategy", "unknown strategy '" + json_check::quoted(p.strategy) + "'", "one of " + strategies());
  p.nodes = c.integer("nodes", f.at("nodes"), limits::kMaxNodes);
  p.nic_gbps = c.number("nic_gbps", f.at("nic_gbps"), limits::kMinNicGbps, limits::kMaxNicGbps, false);
  const auto given = [&f](const std::string& k) {
    auto it = f.find(k);
    return it != f.end() && !it->second.empty();
  };
  if (given("batch"))
    p.batch = c.integer("batch", f.at("batch"), kMaxBatch);
  else if (given("batch_per_gpu"))
    p.batch = c.integer("batch_per_gpu", f.at("batch_per_gpu"), kMaxBatch);
  if (given("stack")) p.stack = f.at("stack");
  if (given("source")) p.source = f.at("source");
  if (given("profile")) p.profile = f.at("profile");
  if (given("precision")) {
    const auto pr = precision_from_string(f.at("precision"));
    if (!pr)
      c.fail("precision", "unknown precision '" + json_check::quoted(f.at("precision")) + "'",
             "one of " + json_check::list(precision_names()));
    p.precision = *pr;
  }
  if (auto it = f.find("gpus_per_node"); it != f.end() && !it->second.empty())
    p.gpus_per_node = c.integer("gpus_per_node", it->second, limits::kMaxGpusPerNode);
  if (is_reference(p.strategy) && p.nodes != 1)
    c.fail("nodes", "strategy single runs on one node, not " + std::to_string(p.nodes),
           "1 with strategy single");
  p.measured_as.clear();
  for (const auto& k : kMeasures)
    if (given(k)) {
      p.measured_as = k;
      break;
    }
  if (p.measured_as.empty())
    c.fail("iteration_s", "missing", "one of iteration_s, images_per_s or speedup per point");
  p.measured_value = c.number(p.measured_as, f.at(p.measured_as), 0, kMaxMeasured, true);
  if (p.measured_as == "iteration_s") {
    p.iteration_s = p.measured_value;
  } else if (p.measured_as == "images_per_s") {
    p.iteration_s = p.images_per_iteration() / p.measured_value;
  } else {
    if (!given("reference_images_per_s"))
      c.fail("reference_images_per_s", "missing",
             "the images/s of the reference a speedup is measured against");
    p.reference_images_per_s =
        c.number("reference_images_per_s", f.at("reference_images_per_s"), 0, kMaxMeasured, true);
    p.iteration_s = p.images_per_iteration() / (p.measured_value * p.reference_images_per_s);
  }
  // What the engines will simulate: an iteration a plan may hold (limits::kMaxTaskSeconds).
  if (!(p.iteration_s >= kMinIterationS && p.iteration_s <= limits::kMaxTaskSeconds))
    c.fail(p.measured_as, "gives an iteration of " + Checker::g(p.iteration_s) + " s",
           "an iteration time in [" + Checker::g(kMinIterationS) + ", " + Checker::g(limits::kMaxTaskSeconds) + "] s");
}

MeasurementSet parse_csv(const std::string& text, const std::string& where,
                         const std::string& base_dir, int default_batch) {
  MeasurementSet set;
  set.path = where;
  if (text.compare(0, 2, "\xFF\xFE") == 0 || text.compare(0, 2, "\xFE\xFF") == 0)
    throw InputError(where, "", "is UTF-16 (it begins with the byte order mark " +
                                    std::string(text[0] == '\xFF' ? "FF FE" : "FE FF") + ")",
                     "CSV in UTF-8 (a spreadsheet's \"CSV UTF-8\")");
  std::vector<std::string> header;
  for (CsvRow& row : read_csv(text, where).rows) {
    std::vector<std::string> cells;
    for (const std::string& cell : row.cells) cells.push_back(trim(cell));
    const Checker c{where + ":" + std::to_string(row.line), ""};
    if (header.empty()) {
      header = cells;
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (!known(header[i]))
          c.fail("header",
                 "unknown column '" + json_check::quoted(header[i]) + "'" +
                     (header[i].find("\xEF\xBB\xBF") != std::string::npos
                          ? " (it holds a byte order mark, U+FEFF, which is invisible: save the file as UTF-8 without one)"
                          : ""),
                 "columns " + known_list());
        for (std::size_t j = 0; j < i; ++j)
          if (header[j] == header[i])
            c.fail("header", "column '" + header[i] + "' appears twice", "each column once");
      }
      for (const auto& k : kRequired)
        if (std::find(header.begin(), header.end(), k) == header.end())
          c.fail("header", "missing column '" + k + "'", "columns " + known_list());
      if (std::none_of(kMeasures.begin(), kMeasures.end(), [&](const std::string& k) {
            return std::find(header.begin(), header.end(), k) != header.end();
          }))
        c.fail("header", "no measurement column",
               "a column iteration_s, images_per_s or speedup");
      continue;
    }
    if (cells.size() != header.size())
      c.fail("",
             std::to_string(cells.size()) + " values for " + std::to_string(header.size()) +
                 " columns",
             "one value per header column");
    std::map<std::string, std::string> f;
    for (std::size_t i = 0; i < header.size(); ++i) {
      // RFC 4180 lets a quoted value hold line breaks; in the free-text note each reads as
      // one space (possim prints a point's source on one line). Names and numbers keep none.
      if (header[i] == "source") cells[i] = one_line(cells[i]);
      if (cells[i].size() > limits::kMaxNoteChars || !is_label_text(cells[i]))
        c.fail(header[i], "'" + json_check::quoted(cells[i]) + "' is not printable text (control characters, not UTF-8, or over " +
                              std::to_string(limits::kMaxNoteChars) + " bytes)",
               "a value");
      f[header[i]] = cells[i];
    }
    MeasurementPoint p;
    p.batch = default_batch;
    p.where = c.where;
    fill(p, f, c, base_dir, set);
    set.points.push_back(p);
  }
  if (header.empty()) throw InputError(where, "", "no header row", "a CSV header: " + known_list());
  if (set.points.empty()) throw InputError(where, "", "no measurement rows", "at least one point");
  return set;
}

MeasurementSet parse_json(const std::string& text, const std::string& where,
                          const std::string& base_dir, int default_batch) {
  json j = json_check::Reader(where).parse(
      text, "{\"points\": [{model, strategy, nodes, nic_gbps, iteration_s}, ...]}");
  const json* pts = &j;
  if (j.is_object()) {
    for (const auto& item : j.items())
      if (item.key() != "points" && item.key() != "description")
        throw InputError(where, json_check::quoted(item.key()), "unknown field",
                         "points (and an optional description)");
    if (!j.contains("points"))
      throw InputError(where, "points", "missing", "a list of measured points");
    pts = &j["points"];
  }
  if (!pts->is_array())
    throw InputError(where, "points", "is not a list", "a list of measured points");
  MeasurementSet set;
  set.path = where;
  for (std::size_t i = 0; i < pts->size(); ++i) {
    const json& e = (*pts)[i];
    const Checker c{where, "points[" + std::to_string(i) + "]."};
    if (!e.is_object())
      c.fail("", "is not an object", "{model, strategy, nodes, nic_gbps, iteration_s}");
    std::map<std::string, std::string> f;
    for (const auto& item : e.items()) {
      if (!known(item.key())) c.fail(json_check::quoted(item.key()), "unknown field", "fields " + known_list());
      const json& v = item.value();
      if (in(kText, item.key()) || item.key() == "engine") {
        if (!v.is_string()) c.fail(item.key(), json_check::quoted(v.dump()) + " is not a string", "a string");
        f[item.key()] = json_check::Reader(where).label(v, "points[" + std::to_string(i) + "]." + item.key(),
                                                       limits::kMaxNoteChars, "a string");
      } else {
        if (!v.is_number()) c.fail(item.key(), json_check::quoted(v.dump()) + " is not a number", "a number");
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v.get<double>());
        f[item.key()] = buf;
      }
    }
    MeasurementPoint p;
    p.batch = default_batch;
    p.where = where + ": points[" + std::to_string(i) + "]";
    fill(p, f, c, base_dir, set);
    set.points.push_back(p);
  }
  if (set.points.empty()) throw InputError(where, "points", "is empty", "at least one point");
  return set;
}

}  // namespace

MeasurementSet parse_measurements(const std::string& text, const std::string& where,
                                  const std::string& base_dir, int default_batch) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '['))
    return parse_json(text, where, base_dir, default_batch);
  return parse_csv(text, where, base_dir, default_batch);
}

MeasurementSet load_measurements(const std::string& path, int default_batch) {
  const std::string text =
      read_input_file(path, "measurements file", "an existing CSV or JSON file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_measurements(text, path, dir.empty() ? "." : dir, default_batch);
}

double MeasurementPoint::in_measured_unit(double predicted_iteration_s) const {
  if (!(predicted_iteration_s > 0)) return 0;
  if (measured_as == "images_per_s") return images_per_iteration() / predicted_iteration_s;
  if (measured_as == "speedup")
    return images_per_iteration() / predicted_iteration_s / reference_images_per_s;
  return predicted_iteration_s;
}

std::string measured_profile(const MeasurementSet& set, const std::string& given, const std::string& option,
                             std::string* note) {
  std::string named, where, unnamed;  // unnamed: the first point naming no profile
  for (const MeasurementPoint& p : set.points) {
    if (p.profile.empty()) {
      if (unnamed.empty()) unnamed = p.where;
      continue;
    }
    if (!given.empty()) {  // what was asked for wins (a refitted profile of the same GPU): said once
      if (note && note->empty() && p.profile != given)
        *note = p.where + ": the points name profile '" + json_check::quoted(p.profile) + "'; predicting with " +
                option + " " + given + " as asked";
      continue;
    }
    if (!named.empty() && p.profile != named)
      throw InputError(p.where, "profile", "names profile '" + json_check::quoted(p.profile) + "', " + where + " names '" +
                                               json_check::quoted(named) + "'",
                       "one profile for every point (validate them apart)");
    if (named.empty()) {
      named = p.profile;
      where = p.where;
    }
  }
  if (!given.empty()) return given;
  // Some points name a profile and some none: the others' may not be theirs.
  if (!named.empty() && !unnamed.empty())
    throw InputError(unnamed, "profile", "names no profile, " + where + " names '" + json_check::quoted(named) + "'",
                     "the profile each point was measured on, or " + option + " NAME for all of them");
  if (named.empty())
    throw InputError(option, "", "not given, and no point names the profile it was measured on",
                     option + " NAME (possim profile list), or a profile column");
  return named;
}

std::string measurements_csv(const std::vector<MeasurementPoint>& points) {
  std::string s = "model,strategy,nodes,nic_gbps,iteration_s,batch,gpus_per_node,stack\n";
  char buf[128];
  for (const auto& p : points) {
    std::snprintf(buf, sizeof buf, ",%d,%.17g,%.17g,%d,%d,", p.nodes, p.nic_gbps, p.iteration_s, p.batch,
                  p.gpus_per_node);
    s += csv_field(p.model) + "," + csv_field(p.strategy) + buf + csv_field(p.stack) + "\n";
  }
  return s;
}

}  // namespace possim
