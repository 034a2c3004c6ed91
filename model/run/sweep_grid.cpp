#include "model/run/sweep_grid.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/parallel.hpp"
#include "model/run/provenance.hpp"
#include "model/input/sha256.hpp"
#include "model/run/version.hpp"

namespace possim {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using json_check::Reader;

// The scenario's own lists that a base may hold: axes unless the sweep names them.
const std::vector<std::string> kListAxes = {"model", "strategies", "cluster.nodes", "cluster.nic_gbps"};

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t dot; (dot = path.find('.', start)) != std::string::npos; start = dot + 1)
    parts.push_back(path.substr(start, dot - start));
  parts.push_back(path.substr(start));
  return parts;
}

// The value at a dotted path, or nullptr when a part is missing.
const json* at_path(const json& j, const std::string& path) {
  const json* v = &j;
  for (const auto& part : split_path(path)) {
    if (!v->is_object() || !v->contains(part)) return nullptr;
    v = &(*v)[part];
  }
  return v;
}

// Sets the value at a dotted path, making the objects on the way (cluster.servers).
void set_path(json& j, const std::string& path, const json& value) {
  json* v = &j;
  for (const auto& part : split_path(path)) v = &(*v)[part];
  // A strategy axis gives one strategy; the scenario field is a list of them.
  *v = path == "strategies" ? json::array({value}) : value;
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "; did you mean 'cluster.nic_gbps'?" for an axis given by its last part, else the
// spelling hint.
std::string axis_hint(const std::string& name) {
  for (const auto& axis : sweep_axes())
    if (axis.size() > name.size() && axis.compare(axis.size() - name.size(), name.size(), name) == 0 &&
        axis[axis.size() - name.size() - 1] == '.')
      return "; did you mean '" + axis + "'?";
  if (name == "strategy") return "; did you mean 'strategies'?";
  return json_check::did_you_mean(name, sweep_axes());
}

// One axis: a scalar or a non-empty list of distinct scalars (the scenario checks each
// value in its point).
std::vector<json> axis_values(const Reader& r, const json& v, const std::string& path) {
  const std::string expected = "one value or a non-empty list of distinct values (numbers or strings)";
  const auto scalar = [&](const json& x, const std::string& p) {
    if (!x.is_number() && !x.is_string()) r.fail(p, json_check::describe(x) + " is not a number or a string", expected);
    return x;
  };
  if (!v.is_array()) return {scalar(v, path)};
  if (v.empty()) r.fail(path, "is an empty list", expected);
  if (v.size() > limits::kMaxSweepValues)
    r.fail(path, "has " + std::to_string(v.size()) + " values, over the limit of " +
                     std::to_string(limits::kMaxSweepValues) + " per axis",
           "at most " + std::to_string(limits::kMaxSweepValues) + " values (split the sweep)");
  std::vector<json> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const json x = scalar(v[i], json_check::index(path, i));
    const auto dup = std::find(out.begin(), out.end(), x);
    if (dup != out.end())
      r.fail(json_check::index(path, i), "duplicate of " + json_check::index(path, std::size_t(dup - out.begin())),
             "distinct values");
    out.push_back(x);
  }
  return out;
}

// The hash of what a scenario's numbers depend on: its fields (not its name or
// description), the bytes of its model and profile files, the run identity and possim.
std::string inputs_key(json inputs, const Scenario& s, const RunIdentity& id) {
  inputs.erase("name");
  inputs.erase("description");
  const json k = {{"scenario", inputs},
                  {"model_sha256", s.network.file_sha256.empty() ? "zoo:" + s.network.name
                                                                 : s.network.file_sha256},
                  {"profile_sha256", s.profile.sha256},
                  {"engine", id.engine},
                  {"all_iterations", id.all_iterations},
                  {"possim_version", possim_version()}};
  return sha256_hex(k.dump());
}

}  // namespace

const std::vector<std::string>& sweep_axes() {
  static const std::vector<std::string> axes = {
      "model",         "batch_per_gpu",        "strategies",
      "cluster.nodes", "cluster.gpus_per_node", "cluster.nics_per_node", "cluster.nic_gbps",
      "cluster.latency_s", "cluster.servers.shards", "cluster.transport", "strategy_options.kv_pair_bytes",
      "strategy_options.bucket_bytes", "strategy_options.best_scheme", "strategy_options.staleness", "precision",
      "seed"};
  return axes;
}

Scenario SweepGrid::scenario(std::size_t i) const {
  return parse_scenario(points.at(i).scenario_json, path + ": " + describe(i), base_dir);
}

std::string SweepGrid::describe(std::size_t i) const {
  const GridPoint& p = points.at(i);
  std::string out = "point " + std::to_string(p.index) + " (";
  for (std::size_t a = 0; a < axes.size(); ++a)
    out += (a ? ", " : "") + axes[a] + "=" + json_check::quoted(value_text(p.values.at(axes[a])));
  return out + ")";
}

SweepGrid load_sweep(const std::string& path, const RunIdentity& identity) {
  const std::string text = read_input_file(path, "sweep file", "an existing sweep JSON");
  const std::string dir = fs::path(path).parent_path().string();
  return parse_sweep(text, path, dir.empty() ? "." : dir, identity);
}

// The base: a scenario file or one inline; checked whole as a scenario first, so that its
// own mistakes are named in its own file.
static json read_base(const Reader& r, const json& j, const std::string& where, const std::string& dir, SweepGrid& g,
               std::string& base_where) {
  const std::string base_e = "either \"base\": a scenario file, or \"scenario\": a scenario object";
  if (j.contains("base") == j.contains("scenario"))
    r.fail(j.contains("base") ? "scenario" : "base", j.contains("base") ? "given beside \"base\"" : "missing", base_e);
  json base;
  if (j.contains("base")) {
    const std::string ref = r.text(j["base"], "base", "a path to a scenario file");
    fs::path p(ref);
    if (p.is_relative()) p = fs::path(dir) / p;
    g.base_path = p.lexically_normal().string();
    const std::string base_text = read_input_file(g.base_path, "base scenario file", "an existing scenario JSON");
    g.base_sha256 = sha256_hex(base_text);
    base = Reader(g.base_path).parse(base_text, "a scenario JSON object");
    const std::string base_dir = fs::path(g.base_path).parent_path().string();
    g.base_dir = base_dir.empty() ? "." : base_dir;
    base_where = g.base_path;
  } else {
    base = r.object(j["scenario"], "scenario", "a scenario object");
    g.base_dir = dir;
    base_where = where + ": scenario";
  }
  return base;
}

// Axes: the sweep's, then the base's own lists.
static std::map<std::string, std::vector<json>> read_axes(const Reader& r, const json& j, const json& base) {
  std::map<std::string, std::vector<json>> values;
  if (j.contains("axes")) {
    const json& axes = r.object(j["axes"], "axes", "an object: scenario field -> values");
    if (axes.size() > limits::kMaxSweepAxes)
      r.fail("axes", "has " + std::to_string(axes.size()) + " axes", "at most " + std::to_string(limits::kMaxSweepAxes));
    for (const auto& item : axes.items()) {
      const std::string path = json_check::join("axes", json_check::quoted(item.key()));
      if (std::find(sweep_axes().begin(), sweep_axes().end(), item.key()) == sweep_axes().end())
        r.fail(path, "not a field a sweep can vary" + axis_hint(item.key()),
               "one of " + json_check::list(sweep_axes()));
      values[item.key()] = axis_values(r, item.value(), path);
    }
  }
  for (const auto& axis : kListAxes)
    if (!values.count(axis))
      if (const json* v = at_path(base, axis); v && v->is_array()) values[axis] = std::vector<json>(v->begin(), v->end());
  return values;
}

static void finish_provenance(SweepGrid& g, const std::string& base_where, const Scenario& base_scenario,
                       std::map<std::string, std::vector<json>>& values, const std::map<std::string, json>& models) {
  g.provenance["sweep"] = {{"path", g.path}, {"sha256", g.sha256}};
  g.provenance["scenario"] = {{"path", g.base_path.empty() ? base_where : g.base_path},
                              {"sha256", g.base_path.empty() ? json(nullptr) : json(g.base_sha256)}};
  g.provenance["seed"] = base_scenario.seed;
  json axes = json::object();
  for (const auto& axis : g.axes) axes[axis] = values[axis];
  g.provenance["axes"] = axes;
  if (models.size() > 1) {
    g.provenance["model"] = json::array();
    for (const auto& [ref, m] : models) g.provenance["model"].push_back(m);
  }
}

SweepGrid parse_sweep(const std::string& text, const std::string& where, const std::string& dir,
                      const RunIdentity& identity) {
  const Reader r(where);
  const json j = r.parse(text, "a sweep JSON object");
  if (!j.is_object()) r.fail("", "the top level is " + json_check::describe(j), "a JSON object");
  r.only_known(j, "", {"name", "description", "base", "scenario", "axes"});
  SweepGrid g;
  g.path = where;
  g.sha256 = sha256_hex(text);
  g.identity = identity;
  const EngineInfo* engine = find_engine(identity.engine);
  const std::function<std::string(const Scenario&)> engine_caveat = engine ? engine->caveat : nullptr;
  const std::string name_e = "a name of letters, digits, '.', '_' and '-' (at most " +
                             std::to_string(limits::kMaxNameChars) + ", not . or ..)";
  g.name = j.contains("name") ? r.text(j["name"], "name", name_e) : name_from_path(where);
  if (!safe_name(g.name)) r.fail("name", "'" + json_check::quoted(g.name) + "' cannot be a folder name", name_e);
  if (j.contains("description")) g.description = r.text(j["description"], "description", "a string");

  std::string base_where;
  const json base = read_base(r, j, where, dir, g, base_where);
  const Scenario base_scenario = parse_scenario(base.dump(), base_where, g.base_dir);

  std::map<std::string, std::vector<json>> values = read_axes(r, j, base);
  std::size_t total = 1;
  for (const auto& axis : sweep_axes())
    if (values.count(axis)) {
      g.axes.push_back(axis);
      if (__builtin_mul_overflow(total, values[axis].size(), &total) || total > limits::kMaxSweepPoints)
        r.fail("axes", "the grid has over " + std::to_string(limits::kMaxSweepPoints) + " points",
               "at most " + std::to_string(limits::kMaxSweepPoints) + " points (split the sweep)");
    }

  // The grid, the last axis fastest; each point a scenario checked now, before any runs.
  std::set<std::string> keys;
  std::map<std::string, json> models;  // model ref -> its provenance
  std::vector<std::size_t> digit(g.axes.size(), 0);
  for (std::size_t n = 0; n < total; ++n) {
    GridPoint p;
    p.index = g.points.size();
    json point = base;
    point["name"] = g.name;
    for (std::size_t a = 0; a < g.axes.size(); ++a) {
      p.values[g.axes[a]] = values[g.axes[a]][digit[a]];
      set_path(point, g.axes[a], p.values[g.axes[a]]);
    }
    // The base's stacks for strategies this point does not run would be refused ("not among
    // the scenario's strategies"); single's stays, it times the speedup's reference.
    if (point.contains("stacks") && point["stacks"].is_object())
      for (auto it = point["stacks"].begin(); it != point["stacks"].end();)
        it = is_reference(it.key()) || json::array({it.key()}) == point["strategies"] ? std::next(it)
                                                                                     : point["stacks"].erase(it);
    // As in a scenario, single runs on one GPU of one node whatever the node count.
    if (point["strategies"] == json::array({reference_strategy()})) {
      point["cluster"]["nodes"] = 1;
      if (p.values.contains("cluster.nodes")) p.values["cluster.nodes"] = 1;
    }
    p.scenario_json = point.dump();
    g.points.push_back(p);
    const Scenario s = g.scenario(p.index);
    if (sweep_points(s).size() != 1)
      throw std::logic_error(g.path + ": " + g.describe(p.index) + " is not a single point");
    g.points.back().key = inputs_key(point, s, identity);
    json single = point;
    single["strategies"] = json::array({reference_strategy()});
    single["cluster"]["nodes"] = 1;
    g.points.back().baseline_key = inputs_key(single, s, identity);
    if (!keys.insert(g.points.back().key).second) {
      g.points.pop_back();  // the same inputs as an earlier point
      ++g.merged;
    }
    models[s.model_ref] = provenance_json(s, identity.engine)["model"];
    const std::string caveat = engine_caveat ? engine_caveat(s) : "";
    if (!caveat.empty() && std::find(g.caveats.begin(), g.caveats.end(), caveat) == g.caveats.end())
      g.caveats.push_back(caveat);
    if (g.points.size() == 1) g.provenance = provenance_json(s, identity.engine);
    for (std::size_t a = g.axes.size(); a-- > 0;) {  // the odometer
      if (++digit[a] < values[g.axes[a]].size()) break;
      digit[a] = 0;
    }
  }

  finish_provenance(g, base_where, base_scenario, values, models);
  return g;
}

double BaselineCache::get(const SweepGrid& grid, std::size_t i, const Engine& engine) {
  const std::string& key = grid.points.at(i).baseline_key;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = images_per_s_.find(key);
    if (it != images_per_s_.end()) return it->second;
  }
  // Outside the lock: two threads may compute the same reference, with the same result.
  const double ips = single_gpu_images_per_s(grid.scenario(i), engine);
  const std::lock_guard<std::mutex> lock(mutex_);
  images_per_s_.emplace(key, ips);
  return ips;
}

Result run_grid_point(const SweepGrid& grid, std::size_t i, const Engine& engine,
                      const PointOptions& opt, BaselineCache& baselines, const RefinePoint& refine) {
  try {
    const Scenario s = grid.scenario(i);
    const double single = baselines.get(grid, i, engine);
    const SweepPoint p = sweep_points(s).front();
    Result r = run_point(s, p, engine, single, opt);
    if (refine) refine(s, p, r);
    return r;
  } catch (...) {
    rethrow_with(grid.path + ": " + grid.describe(i) + ": ");
  }
}

}  // namespace possim
