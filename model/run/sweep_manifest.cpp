#include "model/run/sweep_manifest.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/run/engine_registry.hpp"
#include "model/input/sha256.hpp"
#include "model/run/result_io.hpp"

namespace possim {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "possim-sweep-1";

// Axes whose values results.csv's own columns do not show, and the column each gets.
const std::vector<std::pair<std::string, std::string>> kExtraColumns = {
    {"strategy_options.kv_pair_bytes", "kv_pair_bytes"},
    {"strategy_options.bucket_bytes", "bucket_bytes"},
    {"strategy_options.best_scheme", "best_scheme"},
    {"precision", "precision"},
    {"cluster.transport", "transport"},
    {"cluster.nics_per_node", "nics_per_node"},
    {"strategy_options.staleness", "staleness"},
    {"seed", "seed"}};

// The shard's points in grid order, each with its record.
std::vector<std::pair<const ManifestPoint*, const json*>> shard_records(const SweepManifest& m,
                                                                         const PointRecords& records) {
  const auto missing = m.missing(records);
  if (!missing.empty())
    throw InputError(m.name + ": " + std::to_string(missing.size()) + " points have no result, the first point " +
                     std::to_string(missing.front()) + " " + m.points[missing.front()].values.dump() +
                     " (run the sweep, or the shards that hold them, to the end)");
  std::vector<std::pair<const ManifestPoint*, const json*>> out;
  for (std::size_t i = 0; i < m.points.size(); ++i)
    if (m.in_shard(i)) out.emplace_back(&m.points[i], &records.at(m.points[i].key));
  return out;
}

// What sweep.json and results.json both begin with: the sweep, its engine, the shard, the
// axes and the provenance; `name_key` names the sweep's field ("name" or "sweep").
json header(const SweepManifest& m, const char* name_key) {
  return {{name_key, m.name},
          {"engine", m.engine},
          {"shard", {{"index", m.shard_index}, {"count", m.shard_count}}},
          {"axes", m.axes},
          {"provenance", m.provenance}};
}

}  // namespace

std::string SweepManifest::grid_key() const {
  std::string keys;
  for (const auto& p : points) keys += p.key + "\n";
  return sha256_hex(keys);
}

std::vector<std::size_t> SweepManifest::missing(const PointRecords& records) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (in_shard(i) && !records.count(points[i].key)) out.push_back(i);
  return out;
}

RecordCheck SweepManifest::record_check() const {
  auto index = std::make_shared<std::map<std::string, std::size_t>>();
  for (std::size_t i = 0; i < points.size(); ++i) (*index)[points[i].key] = i;
  return [this, index](const std::string& key, const json& record, const Result& result, const json_check::Reader& r) {
    const auto it = index->find(key);
    if (it == index->end()) return;
    const json& values = points[it->second].values;
    if (record.at("values") != values)
      r.fail("values", "are not those of the point with this key, " + json_check::quoted(values.dump()),
             "the record possim wrote for the point");
    const auto strategy = values.find("strategies");
    if (strategy != values.end() && *strategy != result.strategy)
      r.fail("result.strategy", "'" + result.strategy + "' is not the point's strategy " + strategy->dump(),
             "the record possim wrote for the point");
  };
}

SweepManifest manifest_of(const SweepGrid& grid, int shard_index, int shard_count) {
  SweepManifest m;
  m.name = grid.name;
  m.engine = grid.identity.engine;
  m.provenance = grid.provenance;
  m.axes = grid.axes;
  for (const auto& p : grid.points) m.points.push_back(ManifestPoint{p.key, p.values});
  m.shard_index = shard_index;
  m.shard_count = shard_count;
  return m;
}

std::string manifest_json(const SweepManifest& m) {
  json points = json::array();
  for (const auto& p : m.points) points.push_back({{"key", p.key}, {"values", p.values}});
  json j = header(m, "name");
  j["format"] = kFormat;
  j["points"] = points;
  return j.dump(1) + "\n";
}

SweepManifest read_manifest(const std::string& path) {
  const std::string text = read_input_file(path, "sweep manifest", "a sweep folder's sweep.json");
  const json_check::Reader r(path);
  const json j = r.parse(text, "a sweep manifest");
  r.object(j, "", "a sweep manifest object");
  r.only_known(j, "", {"format", "name", "engine", "shard", "axes", "provenance", "points"});
  if (r.text(r.require(j, "", "format", kFormat), "format", kFormat) != kFormat)
    r.fail("format", "is not " + std::string(kFormat), kFormat);
  SweepManifest m;
  m.name = r.text(r.require(j, "", "name", "the sweep's name"), "name", "the sweep's name");
  if (!safe_name(m.name)) r.fail("name", "'" + json_check::quoted(m.name) + "' cannot be a folder name", "a safe name");
  const std::string sweeping = engine_choices([](const EngineCapabilities& c) { return c.runs_sweeps; });
  m.engine = r.text(r.require(j, "", "engine", sweeping), "engine", sweeping);
  if (!capabilities_of(m.engine).runs_sweeps)
    r.fail("engine", "'" + json_check::quoted(m.engine) + "' is not an engine that runs sweeps", sweeping);
  m.provenance = r.object(r.require(j, "", "provenance", "an object"), "provenance", "an object");
  const json& axes = r.array(r.require(j, "", "axes", "a list of axes"), "axes", "a list of axes");
  if (axes.size() > limits::kMaxSweepAxes)
    r.fail("axes", "has " + std::to_string(axes.size()) + " axes", "at most " + std::to_string(limits::kMaxSweepAxes));
  for (std::size_t i = 0; i < axes.size(); ++i) {
    m.axes.push_back(r.text(axes[i], json_check::index("axes", i), "an axis name"));
    const auto& known = sweep_axes();
    if (std::find(known.begin(), known.end(), m.axes.back()) == known.end())
      r.fail(json_check::index("axes", i), "'" + json_check::quoted(m.axes.back()) + "' is not an axis",
             "one of " + json_check::list(known));
  }
  const json& points = r.array(r.require(j, "", "points", "a list of points"), "points", "a list of points");
  if (points.empty() || points.size() > limits::kMaxSweepPoints)
    r.fail("points", "has " + std::to_string(points.size()) + " points",
           "1 to " + std::to_string(limits::kMaxSweepPoints) + " points");
  std::set<std::string> keys;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = json_check::index("points", i);
    const json& p = r.object(points[i], at, "an object with key and values");
    const std::string key = r.text(r.require(p, at, "key", "64 hex digits"), at + ".key", "64 hex digits");
    if (key.size() != 64 || key.find_first_not_of("0123456789abcdef") != std::string::npos)
      r.fail(at + ".key", "is not 64 hex digits", "a point key");
    if (!keys.insert(key).second) r.fail(at + ".key", "repeats an earlier point's", "distinct keys");
    const json& values = r.object(r.require(p, at, "values", "an object"), at + ".values", "an object");
    // Each an axis of the sweep, with a number or a name: they go into results.csv and results.json.
    for (const auto& [axis, v] : values.items()) {
      const std::string field = at + ".values." + json_check::quoted(axis);
      if (std::find(m.axes.begin(), m.axes.end(), axis) == m.axes.end())
        r.fail(field, "is not one of the sweep's axes", "one of " + json_check::list(m.axes));
      if (v.is_string()) r.label(v, field, limits::kMaxLabelChars, "a number or a name");
      else if (!v.is_number()) r.fail(field, json_check::describe(v) + " is not a number or a name", "a number or a name");
    }
    m.points.push_back(ManifestPoint{key, values});
  }
  const json& shard = r.object(r.require(j, "", "shard", "an object with index and count"), "shard", "an object");
  m.shard_count = int(r.integer(r.require(shard, "shard", "count", "an integer"), "shard.count", 1,
                                (long long)limits::kMaxSweepPoints, "a shard count"));
  m.shard_index = int(r.integer(r.require(shard, "shard", "index", "an integer"), "shard.index", 0,
                                m.shard_count - 1, "a shard index below the count"));
  return m;
}

std::string sweep_results_csv(const SweepManifest& m, const PointRecords& records) {
  std::vector<std::pair<std::string, std::string>> extra;
  for (const auto& column : kExtraColumns)
    if (std::find(m.axes.begin(), m.axes.end(), column.first) != m.axes.end()) extra.push_back(column);
  std::vector<Result> results;
  std::vector<std::string> tails;
  for (const auto& [point, record] : shard_records(m, records)) {
    results.push_back(record_result(*record));
    std::string tail;
    for (const auto& column : extra) tail += "," + point->values.at(column.first).dump();
    tails.push_back(tail);
  }
  std::string header_tail;
  for (const auto& column : extra) header_tail += "," + column.second;
  // possim run's CSV, each line extended.
  std::istringstream in(results_csv(results));
  std::string out, line;
  for (std::size_t row = 0; std::getline(in, line); ++row)
    out += line + (row == 0 ? header_tail : tails.at(row - 1)) + "\n";
  return out;
}

std::string sweep_results_json(const SweepManifest& m, const PointRecords& records) {
  json results = json::array();
  for (const auto& [point, record] : shard_records(m, records)) {
    json r = result_to_json(record_result(*record));
    r["point"] = point->values;
    r["point_key"] = point->key;
    results.push_back(r);
  }
  json j = header(m, "sweep");
  j["results"] = results;
  return j.dump(2) + "\n";
}

std::string sweep_points_jsonl(const SweepManifest& m, const PointRecords& records) {
  std::string out;
  for (const auto& [point, record] : shard_records(m, records)) out += record->dump() + "\n";
  return out;
}

}  // namespace possim
