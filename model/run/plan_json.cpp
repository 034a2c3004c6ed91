#include "model/run/plan_json.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/plan/plan_check.hpp"
#include "model/strategies/strategy.hpp"

namespace possim {

namespace {

using json = nlohmann::json;
using json_check::Reader;
using json_check::join;
using json_check::index;

constexpr long long kMaxTasks = 4'000'000;
constexpr long long kMaxDeps = 1'000'000;
constexpr double kMaxBytes = 1e15;
constexpr double kMaxRate = 1e15;

const char* to_string(Scope s) { return s == Scope::worker ? "worker" : s == Scope::shard ? "shard" : "cluster"; }
const char* to_string(GpuSet g) { return g == GpuSet::all ? "all" : "leader"; }
const char* to_string(FlowPattern p) {
  switch (p) {
    case FlowPattern::none: return "none";
    case FlowPattern::to_shards: return "to_shards";
    case FlowPattern::from_shards: return "from_shards";
    case FlowPattern::to_peers: return "to_peers";
    case FlowPattern::collective: return "collective";
  }
  return "?";
}

// One of an enum's values by its name.
template <class E, std::size_t N>
E pick(const Reader& r, const json& v, const std::string& path, const std::array<E, N>& values) {
  json_check::Names names;
  for (E e : values) names.push_back(to_string(e));
  const std::string s = r.choice(v, path, names);
  return values[std::size_t(std::find(names.begin(), names.end(), s) - names.begin())];
}

const std::array<Scope, 3> kScopes = {Scope::worker, Scope::shard, Scope::cluster};
const std::array<GpuSet, 2> kGpuSets = {GpuSet::leader, GpuSet::all};
const std::array<Payload, 5> kPayloads = {Payload::none, Payload::gradient, Payload::parameters, Payload::factors,
                                          Payload::quantized};
const std::array<DType, 4> kDTypes = {DType::fp32, DType::bf16, DType::fp16, DType::bit1};
const std::array<FlowPattern, 5> kPatterns = {FlowPattern::none, FlowPattern::to_shards, FlowPattern::from_shards,
                                              FlowPattern::to_peers, FlowPattern::collective};
const std::array<CollectiveKind, 2> kCollectives = {CollectiveKind::ring, CollectiveKind::double_tree};
const std::array<ServerPlacement, 2> kPlacements = {ServerPlacement::colocated, ServerPlacement::dedicated};
const std::array<Transport, 2> kTransports = {Transport::tcp, Transport::rdma};
const std::array<Consistency, 2> kConsistency = {Consistency::bsp, Consistency::ssp};

// Every value of an enum whose values are 0..N-1.
template <class E, std::size_t N>
std::array<E, N> enum_values() {
  std::array<E, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = E(i);
  return a;
}

double num(const Reader& r, const json& obj, const std::string& at, const char* key, double lo, double hi,
           const std::string& expected, bool lo_open = false) {
  return r.number(r.require(obj, at, key, expected), join(at, key), lo, hi, expected, lo_open);
}
long long whole(const Reader& r, const json& obj, const std::string& at, const char* key, long long lo, long long hi,
                const std::string& expected) {
  return r.integer(r.require(obj, at, key, expected), join(at, key), lo, hi, expected);
}

json task_json(const Task& t) {
  json deps = json::array();
  for (const Dep& d : t.deps) deps.push_back(json::array({d.task, d.lag}));
  return {{"step", to_string(t.step)},         {"resource", to_string(t.resource)},
          {"scope", to_string(t.scope)},       {"gpus", to_string(t.gpus)},
          {"carries", to_string(t.carries)},   {"dtype", to_string(t.dtype)},
          {"label", t.display_label()},        {"layer", t.layer},
          {"duration_s", t.duration_s},        {"bytes", t.bytes},
          {"pattern", to_string(t.pattern)},   {"collective", to_string(t.collective)},
          {"chunks", t.chunks},                {"tensor", t.tensor},
          {"scale", t.scale},                  {"deps", deps}};
}

Task read_task(const Reader& r, const json& v, const std::string& at, std::size_t tasks, int layers, int tensors) {
  r.object(v, at, "a task");
  r.only_known(v, at, {"step", "resource", "scope", "gpus", "carries", "dtype", "label", "layer", "duration_s", "bytes",
                       "pattern", "collective", "chunks", "tensor", "scale", "deps"});
  Task t;
  t.step = pick(r, r.require(v, at, "step", "a step"), join(at, "step"), (enum_values<Step, kSteps>()));
  t.resource = v.contains("resource") ? pick(r, v["resource"], join(at, "resource"), (enum_values<Resource, kResources>()))
                                      : resource_of(t.step);
  t.scope = v.contains("scope") ? pick(r, v["scope"], join(at, "scope"), kScopes) : info(t.resource).scope;
  if (v.contains("gpus")) t.gpus = pick(r, v["gpus"], join(at, "gpus"), kGpuSets);
  if (v.contains("carries")) t.carries = pick(r, v["carries"], join(at, "carries"), kPayloads);
  if (v.contains("dtype")) t.dtype = pick(r, v["dtype"], join(at, "dtype"), kDTypes);
  if (v.contains("label")) {  // a label that is the step's name is the default (empty)
    std::string label = r.label(v["label"], join(at, "label"), limits::kMaxLabelChars, "a display label");
    if (label != to_string(t.step)) t.label = std::move(label);
  }
  if (v.contains("layer")) t.layer = int(r.integer(v["layer"], join(at, "layer"), -1, layers - 1, "a layer index or -1"));
  if (v.contains("duration_s"))
    t.duration_s = r.number(v["duration_s"], join(at, "duration_s"), 0, limits::kMaxTaskSeconds, "seconds");
  if (v.contains("bytes")) t.bytes = r.number(v["bytes"], join(at, "bytes"), 0, kMaxBytes, "bytes");
  if (v.contains("pattern")) t.pattern = pick(r, v["pattern"], join(at, "pattern"), kPatterns);
  if (v.contains("collective")) t.collective = pick(r, v["collective"], join(at, "collective"), kCollectives);
  if (v.contains("chunks")) t.chunks = int(r.integer(v["chunks"], join(at, "chunks"), 1, 1 << 20, "pipeline chunks"));
  if (v.contains("tensor"))
    t.tensor = int(r.integer(v["tensor"], join(at, "tensor"), -1, tensors - 1, "a tensor index or -1"));
  if (v.contains("scale")) t.scale = r.number(v["scale"], join(at, "scale"), 0, 1e6, "wire bytes per byte", true);
  if (v.contains("deps")) {
    const std::string p = join(at, "deps");
    const json& deps = r.array(v["deps"], p, "a list of [task, lag]");
    if (deps.size() > std::size_t(kMaxDeps)) r.fail(p, "has too many dependencies", "at most 1,000,000");
    for (std::size_t i = 0; i < deps.size(); ++i) {
      const std::string di = index(p, i);
      const json& d = r.array(deps[i], di, "[task, lag]");
      if (d.size() != 2) r.fail(di, "has " + std::to_string(d.size()) + " elements", "[task, lag]");
      const auto task = r.integer(d[0], index(di, 0), 0, (long long)tasks - 1, "a task index");
      const auto lag = r.integer(d[1], index(di, 1), 0, limits::kMaxIterations, "iterations back");
      t.deps.push_back(Dep{std::uint32_t(task), std::uint32_t(lag)});
    }
  }
  return t;
}

}  // namespace

json plan_to_json(const SyncPlan& p) {
  json tensors = json::array();
  for (const Tensor& t : p.tensors) {
    json slices = json::array();
    for (const Slice& s : t.slices) slices.push_back({{"shard", s.shard}, {"bytes", s.bytes}, {"pairs", s.pairs}});
    tensors.push_back({{"layer", t.layer}, {"bytes", t.bytes}, {"slices", slices}});
  }
  json tasks = json::array();
  for (const Task& t : p.tasks) tasks.push_back(task_json(t));
  json decisions = json::array();
  for (const LayerDecision& d : p.decisions)
    decisions.push_back({{"layer", d.layer}, {"scheme", d.scheme}, {"ps_params", d.ps_params},
                         {"sfb_params", d.sfb_params}, {"adam_params", d.adam_params}, {"why", d.why}});
  json layers = json::array();
  for (const PlanLayer& l : p.layers) layers.push_back({{"name", l.name}, {"kind", l.kind}, {"params", l.params}});
  const Rates& r = p.rates;
  return {{"format", kPlanFormat},
          {"strategy", p.strategy},
          {"model", p.model},
          {"cluster",
           {{"nodes", p.cluster.nodes},
            {"gpus_per_node", p.cluster.gpus_per_node},
            {"nics_per_node", p.cluster.nics_per_node},
            {"nic_gbps", p.cluster.nic_gbps},
            {"latency_s", p.cluster.latency_s},
            {"server_shards", p.cluster.server_shards},
            {"placement", to_string(p.cluster.placement)},
            {"transport", to_string(p.cluster.transport)}}},
          {"batch_per_gpu", p.batch_per_gpu},
          {"iterations", p.iterations},
          {"consistency", to_string(p.consistency)},
          {"staleness", p.staleness},
          {"network_scale", p.network_scale},
          {"rails", p.rails},
          {"per_iteration_s", p.per_iteration_s},
          {"rates",
           {{"wire_efficiency", r.wire_efficiency},
            {"host_bytes_per_s", r.host_bytes_per_s},
            {"latency_s", r.latency_s},
            {"per_message_s", r.per_message_s},
            {"pcie_bytes_per_s", r.pcie_bytes_per_s},
            {"pcie_latency_s", r.pcie_latency_s},
            {"copy_host_share", r.copy_host_share},
            {"d2d_bytes_per_s", r.d2d_bytes_per_s},
            {"server_apply_bytes_per_s", r.server_apply_bytes_per_s},
            {"collective_launch_s", r.collective_launch_s},
            {"interference_kernel_slowdown", r.interference_kernel_slowdown},
            {"interference_comm_slowdown", r.interference_comm_slowdown}}},
          {"layers", layers},
          {"decisions", decisions},
          {"tensors", tensors},
          {"tasks", tasks},
          {"slowdown", p.stragglers.slowdown},
          {"dropped", p.stragglers.dropped}};
}

SyncPlan plan_from_json(const json& j, const std::string& where) {
  const Reader r(where);
  r.object(j, "", "a plan object");
  r.only_known(j, "", {"format", "strategy", "model", "cluster", "batch_per_gpu", "iterations", "consistency",
                       "staleness", "network_scale", "rails", "per_iteration_s", "rates", "layers", "tensors", "tasks",
                       "slowdown", "dropped", "decisions", "comment"});
  if (r.text(r.require(j, "", "format", kPlanFormat), "format", kPlanFormat) != kPlanFormat)
    r.fail("format", "is not " + std::string(kPlanFormat), kPlanFormat);
  SyncPlan p;
  // The strategy whose plan it is (a hand-written plan names the one it resembles): what
  // its results say ran.
  p.strategy = r.label(r.require(j, "", "strategy", "a strategy"), "strategy", limits::kMaxNameChars, "a strategy");
  if (!is_strategy(p.strategy))
    r.fail("strategy", "'" + json_check::quoted(p.strategy) + "' is not a strategy",
           "one of " + json_check::list(strategy_names()));
  p.model = j.contains("model") ? r.label(j["model"], "model", limits::kMaxNameChars, "a name") : "";
  {
    const json& c = r.object(r.require(j, "", "cluster", "an object"), "cluster", "an object");
    r.only_known(c, "cluster",
                 {"nodes", "gpus_per_node", "nics_per_node", "nic_gbps", "latency_s", "server_shards", "placement",
                  "transport"});
    p.cluster.nodes = int(whole(r, c, "cluster", "nodes", 1, limits::kMaxNodes, "worker nodes"));
    p.cluster.gpus_per_node = int(whole(r, c, "cluster", "gpus_per_node", 1, limits::kMaxGpusPerNode, "GPUs per node"));
    if (c.contains("nics_per_node"))
      p.cluster.nics_per_node =
          int(whole(r, c, "cluster", "nics_per_node", 1, limits::kMaxGpusPerNode, "NICs per node"));
    p.cluster.nic_gbps = num(r, c, "cluster", "nic_gbps", 0, limits::kMaxNicGbps, "Gbit/s", true);
    p.cluster.latency_s = num(r, c, "cluster", "latency_s", 0, limits::kMaxLatencyS, "seconds");
    p.cluster.server_shards = int(whole(r, c, "cluster", "server_shards", 1, limits::kMaxShards, "shards"));
    if (c.contains("placement")) p.cluster.placement = pick(r, c["placement"], "cluster.placement", kPlacements);
    if (c.contains("transport")) p.cluster.transport = pick(r, c["transport"], "cluster.transport", kTransports);
  }
  p.workers = p.cluster.nodes;
  p.batch_per_gpu = int(whole(r, j, "", "batch_per_gpu", 1, limits::kMaxBatchPerGpu, "images per GPU"));
  p.iterations = int(whole(r, j, "", "iterations", 1, limits::kMaxIterations, "iterations"));
  if (j.contains("consistency")) p.consistency = pick(r, j["consistency"], "consistency", kConsistency);
  if (j.contains("staleness")) p.staleness = int(r.integer(j["staleness"], "staleness", 0, 1000, "iterations"));
  if (j.contains("network_scale")) p.network_scale = r.number(j["network_scale"], "network_scale", 1, 1e6, "a factor");
  if (j.contains("rails"))
    p.rails = int(r.integer(j["rails"], "rails", 1, p.cluster.nics_per_node,
                            "NICs per node the traffic spreads over, in [1, cluster.nics_per_node]"));
  if (j.contains("per_iteration_s"))
    p.per_iteration_s = r.number(j["per_iteration_s"], "per_iteration_s", 0, limits::kMaxTaskSeconds, "seconds");
  {
    const json& v = r.object(r.require(j, "", "rates", "an object"), "rates", "an object");
    r.only_known(v, "rates", {"wire_efficiency", "host_bytes_per_s", "tcp_goodput", "latency_s", "per_message_s", "pcie_bytes_per_s", "pcie_latency_s",
                              "copy_host_share", "d2d_bytes_per_s", "server_apply_bytes_per_s",
                              "collective_launch_s", "interference_kernel_slowdown", "interference_comm_slowdown"});
    Rates& q = p.rates;
    // "tcp_goodput": the same share, as plans written before the transport model name it.
    q.wire_efficiency = num(r, v, "rates", v.contains("tcp_goodput") && !v.contains("wire_efficiency")
                                               ? "tcp_goodput" : "wire_efficiency",
                            0, 1, "a share in (0, 1]", true);
    q.host_bytes_per_s =
        v.contains("host_bytes_per_s") ? num(r, v, "rates", "host_bytes_per_s", 0, kMaxRate, "bytes/s (0: none)") : 0;
    q.latency_s = num(r, v, "rates", "latency_s", 0, limits::kMaxLatencyS, "seconds");
    q.per_message_s = num(r, v, "rates", "per_message_s", 0, 1, "seconds");
    q.pcie_bytes_per_s = num(r, v, "rates", "pcie_bytes_per_s", 0, kMaxRate, "bytes/s", true);
    q.pcie_latency_s = num(r, v, "rates", "pcie_latency_s", 0, 1, "seconds");
    q.copy_host_share = v.contains("copy_host_share") ? num(r, v, "rates", "copy_host_share", 0, 1, "a share") : 0;
    q.d2d_bytes_per_s = num(r, v, "rates", "d2d_bytes_per_s", 0, kMaxRate, "bytes/s", true);
    q.server_apply_bytes_per_s = num(r, v, "rates", "server_apply_bytes_per_s", 0, kMaxRate, "bytes/s", true);
    q.collective_launch_s =
        v.contains("collective_launch_s") ? num(r, v, "rates", "collective_launch_s", 0, 1, "seconds") : 0;
    for (auto [key, field] : {std::pair{"interference_kernel_slowdown", &Rates::interference_kernel_slowdown},
                              std::pair{"interference_comm_slowdown", &Rates::interference_comm_slowdown}})
      q.*field = v.contains(key) ? num(r, v, "rates", key, 1, 100, "a factor of time in [1, 100] (1: none)") : 1;
  }
  if (j.contains("layers")) {
    const json& ls = r.array(j["layers"], "layers", "a list of layers");
    if (ls.size() > std::size_t(limits::kMaxLayers)) r.fail("layers", "has too many layers", "at most 100,000");
    for (std::size_t i = 0; i < ls.size(); ++i) {
      const std::string at = index("layers", i);
      r.object(ls[i], at, "a layer");
      r.only_known(ls[i], at, {"name", "kind", "params"});
      PlanLayer l;
      l.name = r.label(r.require(ls[i], at, "name", "a name"), join(at, "name"), limits::kMaxLabelChars, "a name");
      l.kind = ls[i].contains("kind") ? r.label(ls[i]["kind"], join(at, "kind"), limits::kMaxLabelChars, "a kind") : "";
      l.params = ls[i].contains("params")
                     ? r.number(ls[i]["params"], join(at, "params"), 0, double(limits::kMaxParamsPerLayer), "parameters")
                     : 0;
      p.layers.push_back(l);
    }
  }
  if (j.contains("decisions")) {  // each parameter layer's scheme and Table 1 costs, as results show them
    const json& ds = r.array(j["decisions"], "decisions", "a list of layer decisions");
    if (ds.size() > p.layers.size()) r.fail("decisions", "has more decisions than layers", "at most one per layer");
    for (std::size_t i = 0; i < ds.size(); ++i) {
      const std::string at = index("decisions", i);
      r.object(ds[i], at, "a layer decision");
      r.only_known(ds[i], at, {"layer", "scheme", "ps_params", "sfb_params", "adam_params", "why"});
      LayerDecision d;
      d.layer = int(whole(r, ds[i], at, "layer", 0, (long long)p.layers.size() - 1, "a layer index"));
      d.scheme = r.label(r.require(ds[i], at, "scheme", "a scheme"), join(at, "scheme"), limits::kMaxLabelChars, "a scheme");
      const double max = 1e18;
      d.ps_params = ds[i].contains("ps_params") ? num(r, ds[i], at, "ps_params", 0, max, "parameters") : 0;
      d.sfb_params = ds[i].contains("sfb_params") ? num(r, ds[i], at, "sfb_params", 0, max, "parameters") : 0;
      d.adam_params = ds[i].contains("adam_params") ? num(r, ds[i], at, "adam_params", 0, max, "parameters") : 0;
      d.why = ds[i].contains("why") ? r.label(ds[i]["why"], join(at, "why"), limits::kMaxNoteChars, "a note") : "";
      p.decisions.push_back(d);
    }
  }
  if (j.contains("tensors")) {
    const json& ts = r.array(j["tensors"], "tensors", "a list of tensors");
    if (ts.size() > std::size_t(limits::kMaxLayers)) r.fail("tensors", "has too many tensors", "at most 100,000");
    for (std::size_t i = 0; i < ts.size(); ++i) {
      const std::string at = index("tensors", i);
      r.object(ts[i], at, "a tensor");
      r.only_known(ts[i], at, {"layer", "bytes", "slices"});
      Tensor t;
      t.layer = int(r.integer(r.require(ts[i], at, "layer", "a layer index"), join(at, "layer"), -1,
                              (long long)p.layers.size() - 1, "a layer index or -1"));
      t.bytes = num(r, ts[i], at, "bytes", 0, kMaxBytes, "bytes");
      const std::string sp = join(at, "slices");
      const json& ss = r.array(r.require(ts[i], at, "slices", "a list of slices"), sp, "a list of slices");
      if (ss.size() > std::size_t(p.cluster.server_shards)) r.fail(sp, "has more slices than shards", "at most one per shard");
      for (std::size_t k = 0; k < ss.size(); ++k) {
        const std::string si = index(sp, k);
        r.object(ss[k], si, "a slice");
        r.only_known(ss[k], si, {"shard", "bytes", "pairs"});
        t.slices.push_back(Slice{int(whole(r, ss[k], si, "shard", 0, p.cluster.server_shards - 1, "a shard index")),
                                 num(r, ss[k], si, "bytes", 0, kMaxBytes, "bytes"),
                                 int(whole(r, ss[k], si, "pairs", 0, limits::kMaxKvPairs, "KV pairs"))});
      }
      p.tensors.push_back(std::move(t));
    }
  }
  {
    const json& ts = r.array(r.require(j, "", "tasks", "a list of tasks"), "tasks", "a list of tasks");
    if (ts.empty() || ts.size() > std::size_t(kMaxTasks)) r.fail("tasks", "has " + std::to_string(ts.size()) + " tasks", "1 to 4,000,000");
    for (std::size_t i = 0; i < ts.size(); ++i)
      p.tasks.push_back(read_task(r, ts[i], index("tasks", i), ts.size(), int(p.layers.size()), int(p.tensors.size())));
  }
  // Stragglers: as written, or none (every worker at profile speed, nobody dropped).
  const std::size_t k = std::size_t(p.iterations), w = std::size_t(p.workers);
  if (k * w > std::size_t(limits::kMaxTaskInstances)) r.fail("iterations", "x workers is too large", "at most 20,000,000");
  p.stragglers.slowdown.assign(k, std::vector<double>(w, 1.0));
  p.stragglers.dropped.assign(k, std::vector<char>(w, 0));
  for (const char* key : {"slowdown", "dropped"}) {
    if (!j.contains(key)) continue;
    const json& rows = r.array(j[key], key, "a list per iteration");
    if (rows.size() != k) r.fail(key, "has " + std::to_string(rows.size()) + " iterations", std::to_string(k));
    for (std::size_t t = 0; t < k; ++t) {
      const std::string at = index(key, t);
      const json& row = r.array(rows[t], at, "a list per worker");
      if (row.size() != w) r.fail(at, "has " + std::to_string(row.size()) + " workers", std::to_string(w));
      for (std::size_t x = 0; x < w; ++x) {
        if (std::string(key) == "slowdown")
          p.stragglers.slowdown[t][x] = r.number(row[x], index(at, x), 0, 1e6, "a slowdown factor");
        else
          p.stragglers.dropped[t][x] = char(r.integer(row[x], index(at, x), 0, 1, "0 or 1"));
      }
    }
  }
  try {
    validate(p);
  } catch (const std::logic_error& e) {
    throw InputError(where, "tasks", e.what(), "a plan whose tasks run on their steps' resources, deps pointing back");
  }
  check_plan(p);
  return p;
}

SyncPlan load_plan(const std::string& path) {
  const std::string text = read_input_file(path, "plan", "a plan JSON written by possim plan-dump");
  const Reader r(path);
  return plan_from_json(r.parse(text, "a plan JSON object"), path);
}

}  // namespace possim
