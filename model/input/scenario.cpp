// Scenario JSON: every field checked, each problem one InputError naming the file, the field
// path and what was expected; model and profile resolve against the scenario's folder.
#include "model/input/scenario.hpp"

#include "model/input/strategy_names.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "model/input/engine_sections.hpp"
#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/layer_json.hpp"
#include "model/input/limits.hpp"
#include "model/input/sha256.hpp"
#include "model/workload/zoo.hpp"

namespace possim {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using Names = std::vector<std::string>;

constexpr const char* kDefaultProfile = "titanx_maxwell";
// Bounds that catch unit slips and typos; generous for real clusters. Sizes that drive
// memory and time are in model/limits.hpp.
using limits::kMaxGpusPerNode;
using limits::kMaxIterations;
using limits::kMaxNodes;
constexpr long long kMaxBatch = limits::kMaxBatchPerGpu, kMaxStaleness = 1000;
constexpr double kMinGbps = limits::kMinNicGbps, kMaxGbps = limits::kMaxNicGbps, kMaxLatencyS = limits::kMaxLatencyS;
constexpr double kMinKvBytes = 1024, kMaxKvBytes = 1024.0 * 1024 * 1024;
constexpr double kMaxSigma = 5, kMaxSlowdown = 1000;

using json_check::describe;
using json_check::did_you_mean;
using json_check::index;
using json_check::list;
using json_check::quoted;

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// The shared checks, plus the scenario's own: objects with a fixed set of fields, choices
// from a list, and sweep axes.
class Reader : public json_check::Reader {
 public:
  using json_check::Reader::Reader;

  // An object whose fields are all in `known`.
  void object(const json& v, const std::string& path, const Names& known) const {
    json_check::Reader::object(v, path, "an object with fields " + list(known));
    only_known(v, path, known);
  }

  // A sweep axis: one value or a non-empty list of distinct values.
  template <class T, class One>
  std::vector<T> sweep(const json& v, const std::string& path, const std::string& expected,
                       One one) const {
    if (!v.is_array()) return {one(v, path)};
    if (v.empty()) fail(path, "is an empty list", expected);
    if (v.size() > limits::kMaxSweepValues)
      fail(path, "has " + std::to_string(v.size()) + " values, over the limit of " +
                     std::to_string(limits::kMaxSweepValues) + " per sweep axis",
           "at most " + std::to_string(limits::kMaxSweepValues) + " values (split the sweep)");
    std::vector<T> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const T x = one(v[i], index(path, i));
      auto dup = std::find(out.begin(), out.end(), x);
      if (dup != out.end())
        fail(index(path, i), "duplicate of " + index(path, std::size_t(dup - out.begin())),
             "distinct sweep values");
      out.push_back(x);
    }
    return out;
  }
};

void read_servers(const Reader& r, const json& v, Scenario& s) {
  r.object(v, "cluster.servers", {"shards", "placement"});
  const std::string shards_expected = "\"per_node\" or a shard count >= 1";
  if (v.contains("shards")) {
    const json& sh = v["shards"];
    if (sh.is_string()) {
      if (sh != "per_node")
        r.fail("cluster.servers.shards", "'" + quoted(sh.get<std::string>()) + "' is not allowed",
               shards_expected);
      s.server_shards = 0;
    } else {
      s.server_shards = int(r.integer(sh, "cluster.servers.shards", 1, limits::kMaxShards,
                                      "\"per_node\" or a shard count in [1, " +
                                          std::to_string(limits::kMaxShards) + "]"));
    }
  }
  if (v.contains("placement"))
    s.placement = r.choice(v["placement"], "cluster.servers.placement",
                           {"colocated", "dedicated"}) == "dedicated"
                      ? ServerPlacement::dedicated
                      : ServerPlacement::colocated;
}

void read_cluster(const Reader& r, const json& v, Scenario& s) {
  r.object(v, "cluster", {"nodes", "gpus_per_node", "nics_per_node", "nic_gbps", "latency_s", "servers", "transport"});
  const std::string nodes_e =
      "a node count in [1, " + std::to_string(kMaxNodes) + "] or a list of them";
  s.nodes = r.sweep<int>(r.require(v, "cluster", "nodes", nodes_e), "cluster.nodes", nodes_e,
                         [&](const json& x, const std::string& p) {
                           return int(r.integer(x, p, 1, kMaxNodes, nodes_e));
                         });
  const std::string gbps_e =
      "Gbit/s in [" + num(kMinGbps) + ", " + num(kMaxGbps) + "], or a list of them";
  s.nic_gbps = r.sweep<double>(r.require(v, "cluster", "nic_gbps", gbps_e), "cluster.nic_gbps",
                               gbps_e, [&](const json& x, const std::string& p) {
                                 return r.number(x, p, kMinGbps, kMaxGbps, gbps_e);
                               });
  if (v.contains("gpus_per_node"))
    s.gpus_per_node =
        int(r.integer(v["gpus_per_node"], "cluster.gpus_per_node", 1, kMaxGpusPerNode,
                      "GPUs per node in [1, " + std::to_string(kMaxGpusPerNode) + "]"));
  if (v.contains("nics_per_node"))
    s.nics_per_node =
        int(r.integer(v["nics_per_node"], "cluster.nics_per_node", 1, kMaxGpusPerNode,
                      "NICs per node in [1, " + std::to_string(kMaxGpusPerNode) + "], each at nic_gbps"));
  if (v.contains("latency_s"))
    s.latency_s = r.number(v["latency_s"], "cluster.latency_s", 0, kMaxLatencyS,
                           "seconds in [0, " + num(kMaxLatencyS) + "]");
  if (v.contains("servers")) read_servers(r, v["servers"], s);
  if (v.contains("transport"))
    s.transport = *parse_transport(r.choice(v["transport"], "cluster.transport", {"tcp", "rdma"}));
}

void read_strategies(const Reader& r, const json& v, Scenario& s) {
  const std::string expected = "a non-empty list from " + list(strategy_names());
  r.array(v, "strategies", expected);
  if (v.empty()) r.fail("strategies", "is an empty list", expected);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = index("strategies", i);
    const std::string name = r.text(v[i], p, "a strategy: " + list(strategy_names()));
    if (!is_strategy(name))
      r.fail(p, "unknown strategy '" + quoted(name) + "'" + did_you_mean(name, strategy_names()),
             "one of " + list(strategy_names()));
    if (std::find(s.strategies.begin(), s.strategies.end(), name) != s.strategies.end())
      r.fail(p, "'" + name + "' is listed twice", "distinct strategies");
    s.strategies.push_back(name);
  }
}

void read_stragglers(const Reader& r, const json& v, StragglerModel& m) {
  const std::string base = "strategy_options.stragglers";
  r.object(v, base, {"kind", "sigma", "slowdown", "drop_after"});
  if (v.contains("kind"))
    m.kind = r.choice(v["kind"], base + ".kind", {"none", "lognormal", "fixed"});
  if (v.contains("sigma")) {
    if (m.kind != "lognormal")
      r.fail(base + ".sigma", "only applies to kind lognormal", "no sigma with kind " + m.kind);
    m.sigma = r.number(v["sigma"], base + ".sigma", 0, kMaxSigma,
                       "a log-normal sigma in [0, " + num(kMaxSigma) + "]");
  } else if (m.kind == "lognormal") {
    r.fail(base + ".sigma", "missing",
           "a log-normal sigma in [0, " + num(kMaxSigma) + "] for kind lognormal");
  }
  const std::string slow_e = "a list of per-worker slowdown factors >= 1";
  if (v.contains("slowdown")) {
    if (m.kind != "fixed")
      r.fail(base + ".slowdown", "only applies to kind fixed", "no slowdown with kind " + m.kind);
    const json& sl = v["slowdown"];
    r.array(sl, base + ".slowdown", slow_e);
    for (std::size_t i = 0; i < sl.size(); ++i)
      m.slowdown.push_back(r.number(sl[i], index(base + ".slowdown", i), 1, kMaxSlowdown,
                                    "a slowdown factor in [1, " + num(kMaxSlowdown) + "]"));
  } else if (m.kind == "fixed") {
    r.fail(base + ".slowdown", "missing", slow_e + " for kind fixed");
  }
  if (v.contains("drop_after")) {
    const std::string e =
        "0 (never drop) or a factor in [1, " + num(kMaxSlowdown) + "] of the median worker's time";
    m.drop_after = r.number(v["drop_after"], base + ".drop_after", 0, kMaxSlowdown, e);
    if (m.drop_after > 0 && m.drop_after < 1)
      r.fail(base + ".drop_after", v["drop_after"].dump() + " would drop the median worker", e);
  }
}

void read_options(const Reader& r, const json& v, StrategyOptions& o) {
  const std::string base = "strategy_options";
  r.object(v, base, {"kv_pair_bytes", "bucket_bytes", "consistency", "staleness", "best_scheme", "stragglers"});
  if (v.contains("bucket_bytes"))
    o.bucket_bytes = r.number(v["bucket_bytes"], base + ".bucket_bytes", 0, kMaxKvBytes,
                              "bytes from 0 (a collective per layer) to 1073741824 (1 GiB)");
  if (v.contains("kv_pair_bytes"))
    o.kv_pair_bytes = r.number(v["kv_pair_bytes"], base + ".kv_pair_bytes", kMinKvBytes,
                               kMaxKvBytes, "bytes from 1024 (1 KiB) to 1073741824 (1 GiB)");
  if (v.contains("consistency"))
    o.consistency = r.choice(v["consistency"], base + ".consistency", {"bsp", "ssp"}) == "ssp"
                        ? Consistency::ssp
                        : Consistency::bsp;
  if (v.contains("staleness")) {
    o.staleness = int(r.integer(v["staleness"], base + ".staleness", 0, kMaxStaleness,
                                "iterations in [0, " + std::to_string(kMaxStaleness) + "]"));
    if (o.consistency == Consistency::bsp && o.staleness != 0)
      r.fail(base + ".staleness", std::to_string(o.staleness) + " with consistency bsp",
             "0 with bsp, or \"consistency\": \"ssp\"");
  }
  if (v.contains("best_scheme")) {
    const std::string rule = r.choice(v["best_scheme"], base + ".best_scheme", {"atc17", "sacp16", "timed"});
    o.best_scheme = rule == "sacp16" ? BestSchemeRule::sacp16
                    : rule == "timed" ? BestSchemeRule::timed
                                      : BestSchemeRule::atc17;
  }
  if (v.contains("stragglers")) read_stragglers(r, v["stragglers"], o.stragglers);
}

// Checks that need more than one field.
void cross_check(const Reader& r, const Scenario& s) {
  const auto smallest = std::min_element(s.nodes.begin(), s.nodes.end());
  if (s.placement == ServerPlacement::colocated && s.server_shards > *smallest)
    r.fail("cluster.servers.shards",
           std::to_string(s.server_shards) + " colocated shards exceed the " +
               std::to_string(*smallest) + " nodes of " +
               index("cluster.nodes", std::size_t(smallest - s.nodes.begin())),
           "at most one shard per node (" + std::to_string(*smallest) +
               "), \"per_node\", or \"placement\": \"dedicated\"");
  const StragglerModel& m = s.options.stragglers;
  const int largest = *std::max_element(s.nodes.begin(), s.nodes.end());
  long long gpus = 0;
  if (__builtin_mul_overflow((long long)largest, (long long)s.gpus_per_node, &gpus) ||
      gpus > limits::kMaxGpus)
    r.fail("cluster.gpus_per_node",
           std::to_string(largest) + " nodes x " + std::to_string(s.gpus_per_node) +
               " GPUs is over the limit of " + std::to_string(limits::kMaxGpus) + " GPUs",
           "nodes x gpus_per_node <= " + std::to_string(limits::kMaxGpus));
  std::size_t points = 0;
  if (__builtin_mul_overflow(s.strategies.size(), s.nodes.size(), &points) ||
      __builtin_mul_overflow(points, s.nic_gbps.size(), &points) ||
      points > limits::kMaxSweepPoints)
    r.fail("cluster.nodes",
           std::to_string(s.strategies.size()) + " strategies x " + std::to_string(s.nodes.size()) +
               " node counts x " + std::to_string(s.nic_gbps.size()) +
               " bandwidths is over the limit of " + std::to_string(limits::kMaxSweepPoints) +
               " points",
           "at most " + std::to_string(limits::kMaxSweepPoints) + " points (split the sweep)");
  if (m.kind == "fixed" && int(m.slowdown.size()) != largest)
    r.fail("strategy_options.stragglers.slowdown",
           "has " + std::to_string(m.slowdown.size()) + " factors for " + std::to_string(largest) +
               " workers",
           "one factor per worker of the largest sweep point (" + std::to_string(largest) + ")");
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

fs::path resolve(const std::string& ref, const std::string& base_dir) {
  fs::path p(ref);
  if (p.is_relative() && !base_dir.empty()) p = fs::path(base_dir) / p;
  return p.lexically_normal();
}

// Same rule as load_network: a zoo name, an existing file, or something path-like.
// `at`: the field, "model" or "model[i]" in a list.
Network read_model(const Reader& r, const std::string& ref, const std::string& base_dir, const std::string& at) {
  const std::string expected = "a zoo model (" + list(zoo_names()) + ") or a path to a layer JSON";
  if (ref.empty()) r.fail(at, "is empty", expected);
  if (!in_zoo(ref)) {
    std::error_code ec;
    const fs::path p = resolve(ref, base_dir);
    const bool path_like = ref.find('/') != std::string::npos ||
                           ref.find('\\') != std::string::npos || fs::path(ref).has_extension();
    if (!fs::exists(p, ec)) {
      if (path_like) r.fail(at, "layer JSON '" + quoted(p.string()) + "' does not exist", expected);
      r.fail(at, "unknown model '" + quoted(ref) + "'" + did_you_mean(ref, zoo_names()), expected);
    }
  }
  try {
    return load_network(ref, base_dir);  // a bad layer JSON names its own file and field
  } catch (const std::invalid_argument& e) {
    r.fail(at, e.what(), expected);
  }
}

// "model": one model, or a list of distinct ones (a sweep axis, as cluster.nodes).
void read_model_refs(const Reader& r, const json& v, Scenario& s) {
  const std::string expected = "a zoo model name or a path to a layer JSON, or a list of them";
  s.model_refs = r.sweep<std::string>(v, "model", expected, [&](const json& x, const std::string& at) {
    return r.text(x, at, expected);
  });
  s.model_ref = s.model_refs.front();
}

// Each model's file read and checked; a list keeps every network (per_model splits them).
void read_models(const Reader& r, bool listed, const std::string& base_dir, Scenario& s) {
  for (std::size_t i = 0; i < s.model_refs.size(); ++i) {
    Network n = read_model(r, s.model_refs[i], base_dir, listed ? index("model", i) : "model");
    if (i == 0) s.network = n;
    if (listed) s.networks.push_back(std::move(n));
  }
}

// Same rule as load_profile: no '/' and no ".json" suffix means a shipped profile.
Profile read_profile(const Reader& r, const std::string& ref, const std::string& base_dir) {
  if (ref.empty())
    r.fail("profile", "is empty", "a shipped profile name or a path to a profile JSON");
  const fs::path shipped_dir = fs::path(POSSIM_SOURCE_DIR) / "profiles";
  std::error_code ec;
  if (ref.find('/') == std::string::npos && !ends_with(ref, ".json")) {
    if (!fs::exists(shipped_dir / (ref + ".json"), ec)) {
      Names names;
      for (const auto& e : fs::directory_iterator(shipped_dir, ec))
        if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
      std::sort(names.begin(), names.end());
      r.fail("profile", "no shipped profile '" + quoted(ref) + "'" + did_you_mean(ref, names),
             "one of " + list(names) + ", or a path to a profile JSON");
    }
  } else if (!fs::exists(resolve(ref, base_dir), ec)) {
    r.fail("profile", "profile JSON '" + quoted(resolve(ref, base_dir).string()) + "' does not exist",
           "a shipped profile name or a path to a profile JSON");
  }
  return load_profile(ref, base_dir);  // a bad profile names its own file and field
}

}  // namespace

// A name that becomes a file or folder name (results/NAME, traces): nothing that could
// leave the folder it is written to, or confuse a shell.
bool safe_name(const std::string& n) {
  if (n.empty() || n.size() > limits::kMaxNameChars || n == "." || n == "..") return false;
  for (const char c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  return true;
}

// The file's stem when the scenario gives no name, with other characters made '_'.
std::string name_from_path(const std::string& path) {
  std::string n = fs::path(path).stem().string().substr(0, limits::kMaxNameChars);
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') c = '_';
  return safe_name(n) ? n : "scenario";
}

const char* to_string(Consistency c) { return c == Consistency::ssp ? "ssp" : "bsp"; }
const char* to_string(BestSchemeRule r) {
  switch (r) {
    case BestSchemeRule::atc17: return "atc17";
    case BestSchemeRule::sacp16: return "sacp16";
    case BestSchemeRule::timed: return "timed";
  }
  return "?";
}

const nlohmann::json* Scenario::engine_section(const std::string& key) const {
  const auto it = engine_settings.find(key);
  return it == engine_settings.end() ? nullptr : &it->second;
}

Cluster Scenario::cluster(int n, double gbps) const {
  Cluster c;
  c.nodes = n;
  c.gpus_per_node = gpus_per_node;
  c.nics_per_node = nics_per_node;
  c.nic_gbps = gbps;
  c.latency_s = latency_s;
  c.server_shards = server_shards > 0 ? server_shards : n;
  c.placement = placement;
  c.transport = transport;
  return c;
}

namespace {
// "precision" (default fp32) and "gradient_dtype" (default: the master weights' type).
void read_numerics(const Reader& r, const json& j, Scenario& s) {
  if (j.contains("precision")) {
    const std::string e = "one of " + list(precision_names());
    const std::string name = r.text(j["precision"], "precision", e);
    const auto p = precision_from_string(name);
    if (!p) r.fail("precision", "'" + json_check::quoted(name) + "' is not a precision" + did_you_mean(name, precision_names()), e);
    s.numerics.precision = *p;
  }
  s.numerics.gradient = default_gradient_dtype(s.numerics.precision);
  if (j.contains("gradient_dtype")) {
    const std::string e = "fp32, fp16 or bf16";
    const std::string name = r.text(j["gradient_dtype"], "gradient_dtype", e);
    const auto d = gradient_dtype_from_string(name);
    if (!d) r.fail("gradient_dtype", "'" + json_check::quoted(name) + "' is not a gradient type", e);
    s.numerics.gradient = *d;
  }
}
}  // namespace

Scenario parse_scenario(const std::string& json_text, const std::string& where,
                        const std::string& base_dir) {
  const Reader r(where);
  json j = r.parse(json_text, "a scenario JSON object");
  if (!j.is_object()) r.fail("", "the top level is " + describe(j), "a JSON object");
  json_check::Names fields = {"name",    "description", "model",      "batch_per_gpu", "precision",
                               "gradient_dtype", "cluster", "strategies", "strategy_options", "profile",
                               "stacks", "iterations", "seed"};
  for (const std::string& key : engine_section_keys()) fields.push_back(key);
  r.object(j, "", fields);

  Scenario s;
  s.path = where;
  s.sha256 = sha256_hex(json_text);
  const std::string name_e = "a name of letters, digits, '.', '_' and '-' (at most " +
                             std::to_string(limits::kMaxNameChars) + ", not . or ..)";
  s.name = j.contains("name") ? r.text(j["name"], "name", name_e) : name_from_path(where);
  if (!safe_name(s.name))
    r.fail("name", "'" + json_check::quoted(s.name) + "' cannot be a folder name", name_e);
  if (j.contains("description"))
    s.description = r.text(j["description"], "description", "a string");
  read_model_refs(r, r.require(j, "", "model", "a zoo model or a path to a layer JSON, or a list of them"), s);
  const std::string batch_e = "images per GPU in [1, " + std::to_string(kMaxBatch) + "]";
  s.batch_per_gpu = int(r.integer(r.require(j, "", "batch_per_gpu", batch_e), "batch_per_gpu", 1,
                                  kMaxBatch, batch_e));
  read_numerics(r, j, s);
  read_cluster(r, r.require(j, "", "cluster", "an object with nodes and nic_gbps"), s);
  read_strategies(r, r.require(j, "", "strategies", "a list from " + list(strategy_names())), s);
  if (j.contains("strategy_options")) read_options(r, j["strategy_options"], s.options);
  s.profile_ref = j.contains("profile")
                      ? r.text(j["profile"], "profile", "a shipped profile name or a path")
                      : kDefaultProfile;
  if (j.contains("iterations"))
    s.iterations = int(r.integer(j["iterations"], "iterations", 1, kMaxIterations,
                                 "iterations in [1, " + std::to_string(kMaxIterations) + "]"));
  if (j.contains("seed")) {
    const json& v = j["seed"];
    if (!v.is_number_unsigned())
      r.fail("seed", describe(v) + " is not a non-negative integer", "an integer in [0, 2^64)");
    s.seed = v.get<std::uint64_t>();
  }
  for (const auto& item : j.items())
    if (const EngineSectionCheck check = engine_section_check(item.key())) {
      check(item.value(), r);
      s.engine_settings[item.key()] = item.value();
    }
  cross_check(r, s);
  // Files last, so that a scenario's own mistakes are reported before its references'.
  read_models(r, j["model"].is_array(), base_dir, s);
  s.profile = read_profile(r, s.profile_ref, base_dir);
  if (j.contains("stacks")) {
    const json& st = r.json_check::Reader::object(j["stacks"], "stacks",
                                                  "an object: strategy -> stack of the profile");
    for (const auto& item : st.items()) {
      const std::string at = "stacks." + item.key();
      if (!is_reference(item.key()) &&
          std::find(s.strategies.begin(), s.strategies.end(), item.key()) == s.strategies.end())
        r.fail(at, "'" + item.key() + "' is not among the scenario's strategies",
               std::string(reference_strategy()) + " or one of " + list(s.strategies));
      const std::string name = r.text(item.value(), at, "a stack name");
      if (!s.profile.stacks.count(name)) {
        Names known;
        for (const auto& [n, _] : s.profile.stacks) known.push_back(n);
        r.fail(at, "profile " + s.profile.name + " has no stack '" + name + "'" +
                       did_you_mean(name, known),
               known.empty() ? "a profile with stacks" : "one of " + list(known));
      }
      s.stacks[item.key()] = name;
    }
  }
  try {
    s.profile = s.profile.with_numerics(s.numerics);
  } catch (const InputError& e) {
    r.fail("precision", e.what(), "a precision whose math the profile has a peak for");
  }
  for (const std::string& strategy : s.strategies)
    s.strategy_profiles[strategy] = s.profile.for_strategy(strategy, s.stacks.count(strategy) ? s.stacks.at(strategy) : "");
  const std::string ref = reference_strategy();
  s.strategy_profiles[ref] = s.profile.for_strategy(ref, s.stacks.count(ref) ? s.stacks.at(ref) : "");
  return s;
}

Scenario with_profile(const Scenario& s, const Profile& p) {
  Scenario out = s;
  out.profile = p.with_numerics(s.numerics);
  out.profile_ref = p.path;
  out.strategy_profiles.clear();
  for (const auto& [strategy, _] : s.strategy_profiles)
    out.strategy_profiles[strategy] = out.profile.for_strategy(strategy, s.stacks.count(strategy) ? s.stacks.at(strategy) : "");
  return out;
}

const Profile& Scenario::profile_for(const std::string& strategy) const {
  auto it = strategy_profiles.find(strategy);
  return it == strategy_profiles.end() ? profile : it->second;
}

std::vector<Scenario> per_model(const Scenario& s) {
  if (s.networks.empty()) return {s};
  Scenario one = s;
  one.networks.clear();
  std::vector<Scenario> out;
  for (std::size_t i = 0; i < s.networks.size(); ++i) {
    one.model_ref = s.model_refs[i];
    one.model_refs = {s.model_refs[i]};
    one.network = s.networks[i];
    out.push_back(one);
  }
  return out;
}

void require_one_model(const Scenario& s, const std::string& command) {
  if (s.model_refs.size() <= 1) return;
  throw InputError(s.path, "model",
                   "is a list of " + std::to_string(s.model_refs.size()) + " models (" + list(s.model_refs) + ")",
                   "one model for " + command + " (possim run, sweep and plan take a list)");
}

Scenario load_scenario(const std::string& path) {
  const std::string text = read_input_file(path, "scenario file", "an existing scenario JSON");
  const std::string dir = fs::path(path).parent_path().string();
  return parse_scenario(text, path, dir.empty() ? "." : dir);
}

}  // namespace possim
