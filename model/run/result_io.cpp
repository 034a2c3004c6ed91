#include "model/run/result_io.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/run/engine.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/json_members.hpp"
#include "model/strategies/strategy.hpp"
#include "model/workload/layer.hpp"

namespace possim {

namespace {

// Members go in the order nlohmann::json's dump prints them, by key (json_members.hpp).
template <class Object>
void write_breakdown(Object& o, const Breakdown& b) {
  static const std::vector<std::size_t> by_name = [] {
    std::vector<std::size_t> order(kTimeShares);
    for (std::size_t i = 0; i < kTimeShares; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [](std::size_t a, std::size_t c) {
      return std::string(column_name(TimeShare(a))) < column_name(TimeShare(c));
    });
    return order;
  }();
  for (const std::size_t i : by_name) o.value(column_name(TimeShare(i)), b.s[i]);
}

// A result's members, into either writer of model/run/json_members.hpp, by key.
template <class Object>
void write_result(Object& o, const Result& r, bool with_timeline) {
  const Result::Spread spread = r.iteration_spread();
  const Result::Interval* in = r.interval ? &*r.interval : nullptr;
  o.value("batch_per_gpu", r.batch_per_gpu);
  o.value("dropped_workers", r.dropped_workers);
  o.value("engine", r.engine);
  if (r.partial()) o.value("failure", r.failure);
  o.value("flows_per_iteration", r.flows_per_iteration);
  o.value("gpu_busy_s", r.gpu_busy_s);
  o.value("gpu_stall_s", r.gpu_stall_s);
  o.value("gpus_per_node", r.cluster.gpus_per_node);
  o.value("images_per_s", r.images_per_s);
  if (in) {
    o.value("images_per_s_hi", in->images_per_s_hi);
    o.value("images_per_s_lo", in->images_per_s_lo);
  }
  o.value("iteration_end_s", r.iteration_end_s);
  o.value("iteration_s", r.iteration_s);
  if (in) {
    o.value("iteration_s_hi", in->iteration_s_hi);
    o.value("iteration_s_lo", in->iteration_s_lo);
  }
  o.value("iteration_s_max", spread.max_s);
  o.value("iteration_s_min", spread.min_s);
  o.value("iteration_s_stdev", spread.stdev_s);
  o.value("iterations", r.iterations);
  o.value("latency_s", r.cluster.latency_s);
  o.objects("layers", r.layers, [](auto& row, const LayerResult& l) {
    row.value("adam_params_per_iteration", l.adam_params);
    row.value("kind", l.kind);
    row.value("layer", l.name);
    row.value("layer_index", l.layer);
    row.value("params", l.params);
    row.value("ps_params_per_iteration", l.ps_params);
    row.value("scheme", l.scheme);
    row.value("sfb_params_per_iteration", l.sfb_params);
    row.value("sync_end_s", l.sync_end_s);
    row.value("sync_start_s", l.sync_start_s);
    row.object("time_s", [&](auto& t) { write_breakdown(t, l.breakdown); });
    row.value("why", l.why);
  });
  o.objects("links", r.links, [](auto& row, const LinkUse& l) {
    row.value("bytes_per_iteration", l.bytes_per_iteration);
    row.value("link", l.link);
    row.value("mean_utilization", l.mean_utilization);
    row.value("peak_utilization", l.peak_utilization);
  });
  o.value("model", r.model);
  o.value("nic_gbps", r.cluster.nic_gbps);
  o.value("nodes", r.cluster.nodes);
  o.value("partial", r.partial());
  o.value("received_bytes_per_node_max", r.received_bytes_max);
  o.value("received_bytes_per_node_mean", r.received_bytes_mean);
  o.value("reduced_to_nodes", r.reduced_to_nodes);
  if (!r.training_loss.empty()) o.value("replicas_agree", r.replicas_agree);
  o.value("scaling_efficiency", r.efficiency);
  o.value("sent_bytes_per_node_max", r.sent_bytes_max);
  o.value("sent_bytes_per_node_mean", r.sent_bytes_mean);
  o.value("server_placement", to_string(r.cluster.placement));
  o.value("server_shards", r.cluster.server_shards);
  o.value("simulated_iterations", r.simulated_iterations);
  o.value("single_gpu_images_per_s", r.single_gpu_images_per_s);
  o.value("speedup", r.speedup);
  if (in) {
    o.value("speedup_hi", in->speedup_hi);
    o.value("speedup_lo", in->speedup_lo);
  }
  o.value("stall_share", r.stall_share());
  o.value("strategy", r.strategy);
  o.object("time_s", [&](auto& t) { write_breakdown(t, r.breakdown); });
  if (with_timeline) {
    nlohmann::json events = nlohmann::json::array();
    for (const TimelineEvent& e : r.timeline)
      events.push_back({e.track, e.name, e.category, e.start_s, e.duration_s, e.iteration, e.layer, e.worker, e.bytes,
                        e.peer, e.shard, e.flows});
    o.value("timeline", std::move(events));
  }
  o.value("traffic_max_over_mean", r.traffic_imbalance());
  if (!r.training_loss.empty()) o.value("training_loss", r.training_loss);
}

}  // namespace

nlohmann::json breakdown_to_json(const Breakdown& b) {
  nlohmann::json j = nlohmann::json::object();
  DomObject o(j);
  write_breakdown(o, b);
  return j;
}

nlohmann::json result_to_json(const Result& r, bool with_timeline) {
  nlohmann::json j = nlohmann::json::object();
  DomObject o(j);
  write_result(o, r, with_timeline);
  return j;
}

void append_result_json(std::string& out, const Result& r, int depth) {
  TextObject o(out, depth);
  write_result(o, r, false);
}

namespace {

using json_check::Reader;

// Caps on what a results file may claim: far above any run, low enough that every figure,
// table and sum of them stays finite (a report draws them; a CSV prints them).
constexpr double kMaxSeconds = 1e12;     // a time: 30,000 years
constexpr double kMaxRate = 1e15;        // images/s, speedups, efficiencies
constexpr double kMaxBytes = 1e21;       // bytes per node per iteration
constexpr double kMaxCount = 1e18;       // flows, parameters per iteration
constexpr std::size_t kMaxTimelineEvents = limits::kMaxTaskInstances;

const std::vector<std::string>& result_fields() {
  static const std::vector<std::string> names = {
      "model", "strategy", "engine", "nodes", "gpus_per_node", "nic_gbps", "latency_s", "server_shards",
      "server_placement", "batch_per_gpu", "iterations", "simulated_iterations", "reduced_to_nodes",
      "iteration_s", "iteration_end_s", "iteration_s_min", "iteration_s_max", "iteration_s_stdev",
      "dropped_workers", "images_per_s", "single_gpu_images_per_s", "speedup", "scaling_efficiency",
      "gpu_busy_s", "gpu_stall_s", "stall_share", "time_s", "sent_bytes_per_node_max",
      "received_bytes_per_node_max", "sent_bytes_per_node_mean", "received_bytes_per_node_mean",
      "traffic_max_over_mean", "flows_per_iteration", "layers", "links", "partial", "failure",
      "training_loss", "replicas_agree", "timeline", "iteration_s_lo", "iteration_s_hi", "images_per_s_lo",
      "images_per_s_hi", "speedup_lo", "speedup_hi",
      "queued_transfers",  // written by earlier versions' analytic engine; ignored
      // a sweep's results.json adds its point
      "point", "point_key"};
  return names;
}

Breakdown breakdown_from_json(const nlohmann::json& j, const Reader& r, const std::string& at) {
  r.object(j, at, "seconds per share of the iteration");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < kTimeShares; ++i) names.push_back(column_name(TimeShare(i)));
  r.only_known(j, at, names);
  Breakdown b;
  for (std::size_t i = 0; i < kTimeShares; ++i)
    b.s[i] = r.number(r.require(j, at, names[i].c_str(), "seconds"), json_check::join(at, names[i]), 0, kMaxSeconds,
                      "seconds >= 0");
  return b;
}

// A number field in [lo, hi]; `at` is the record's path.
double num(const nlohmann::json& j, const Reader& r, const std::string& at, const char* key, double lo, double hi,
           const char* expected) {
  return r.number(r.require(j, at, key, expected), json_check::join(at, key), lo, hi, expected);
}
long long whole(const nlohmann::json& j, const Reader& r, const std::string& at, const char* key, long long lo,
                long long hi, const char* expected) {
  return r.integer(r.require(j, at, key, expected), json_check::join(at, key), lo, hi, expected);
}
std::string label(const nlohmann::json& j, const Reader& r, const std::string& at, const char* key,
                  std::size_t max = limits::kMaxLabelChars) {
  return r.label(r.require(j, at, key, "a name"), json_check::join(at, key), max, "a name");
}

std::vector<double> numbers(const nlohmann::json& v, const Reader& r, const std::string& at, std::size_t max_size,
                            double lo, double hi, const char* expected) {
  r.array(v, at, "a list of numbers");
  if (v.size() > max_size)
    r.fail(at, "has " + std::to_string(v.size()) + " entries", "at most " + std::to_string(max_size));
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(r.number(v[i], json_check::index(at, i), lo, hi, expected));
  return out;
}

LayerResult layer_from_json(const nlohmann::json& l, const Reader& r, const std::string& at) {
  r.object(l, at, "a layer row");
  r.only_known(l, at, {"layer", "layer_index", "kind", "scheme", "params", "ps_params_per_iteration",
                       "sfb_params_per_iteration", "adam_params_per_iteration", "why", "sync_start_s",
                       "sync_end_s", "time_s"});
  LayerResult row;
  row.name = label(l, r, at, "layer");
  row.layer = int(whole(l, r, at, "layer_index", -1, limits::kMaxLayers - 1, "a layer index"));
  row.kind = label(l, r, at, "kind");
  try {
    layer_kind_from_string(row.kind);
  } catch (const std::invalid_argument&) {
    r.fail(json_check::join(at, "kind"), "'" + row.kind + "' is not a layer kind", "conv, fc, bn, pool, ...");
  }
  row.scheme = label(l, r, at, "scheme");
  row.params = num(l, r, at, "params", 0, kMaxCount, "parameters");
  row.ps_params = num(l, r, at, "ps_params_per_iteration", 0, kMaxCount, "parameters");
  row.sfb_params = num(l, r, at, "sfb_params_per_iteration", 0, kMaxCount, "parameters");
  row.adam_params = num(l, r, at, "adam_params_per_iteration", 0, kMaxCount, "parameters");
  row.why = label(l, r, at, "why", limits::kMaxNoteChars);
  // From the steady iteration's start: under SSP a layer's sync can begin before it.
  row.sync_start_s = num(l, r, at, "sync_start_s", -kMaxSeconds, kMaxSeconds, "seconds, or -1");
  row.sync_end_s = num(l, r, at, "sync_end_s", -kMaxSeconds, kMaxSeconds, "seconds, or -1");
  row.breakdown = breakdown_from_json(r.require(l, at, "time_s", "an object"), r, json_check::join(at, "time_s"));
  return row;
}

TimelineEvent event_from_json(const nlohmann::json& e, const Reader& r, const std::string& at, const Result& res) {
  const char* expected = "[track, name, category, start_s, duration_s, iteration, layer, worker] and optionally "
                         "[..., bytes, peer, shard, flows]";
  r.array(e, at, expected);
  if (e.size() != 8 && e.size() != 12) r.fail(at, "has " + std::to_string(e.size()) + " elements", expected);
  const auto text = [&](std::size_t i) { return r.label(e[i], json_check::index(at, i), limits::kMaxLabelChars, "a name"); };
  TimelineEvent ev;
  ev.track = text(0);
  ev.name = text(1);
  ev.category = text(2);
  ev.start_s = r.number(e[3], json_check::index(at, 3), 0, kMaxSeconds, "seconds >= 0");
  ev.duration_s = r.number(e[4], json_check::index(at, 4), 0, kMaxSeconds, "seconds >= 0");
  ev.iteration = int(r.integer(e[5], json_check::index(at, 5), 0, res.iterations - 1, "an iteration of the run"));
  ev.layer = int(r.integer(e[6], json_check::index(at, 6), -1, limits::kMaxLayers - 1, "a layer index, or -1"));
  ev.worker = int(r.integer(e[7], json_check::index(at, 7), -1, limits::kMaxGpus - 1, "a worker, or -1"));
  if (e.size() == 12) {
    ev.bytes = r.number(e[8], json_check::index(at, 8), -1, kMaxBytes, "bytes, or -1");
    ev.peer = int(r.integer(e[9], json_check::index(at, 9), -1, limits::kMaxNodes - 1, "a node, or -1"));
    ev.shard = int(r.integer(e[10], json_check::index(at, 10), -1, limits::kMaxShards - 1, "a shard, or -1"));
    ev.flows = int(r.integer(e[11], json_check::index(at, 11), 0, (long long)limits::kMaxTaskInstances, "a count of flows"));
  }
  return ev;
}

// The interval fields: all six or none, each pair around its figure.
std::optional<Result::Interval> interval_from_json(const nlohmann::json& j, const Reader& r, const std::string& at,
                                                   const Result& res) {
  const char* names[] = {"iteration_s_lo", "iteration_s_hi", "images_per_s_lo", "images_per_s_hi", "speedup_lo", "speedup_hi"};
  int present = 0;
  for (const char* n : names) present += j.contains(n) ? 1 : 0;
  if (present == 0) return std::nullopt;
  if (present != 6)
    for (const char* n : names)
      if (!j.contains(n)) r.fail(json_check::join(at, n), "missing beside the other interval fields", "all six or none");
  Result::Interval i;
  const auto pair = [&](const char* lo, const char* hi, double value, double max, const char* unit, double& l, double& h) {
    l = num(j, r, at, lo, 0, max, unit);
    h = num(j, r, at, hi, 0, max, unit);
    // Rounding of the printed figures aside, the interval holds its prediction.
    const double slack = 1e-9 * std::max(1.0, value);
    if (!(l <= value + slack)) r.fail(json_check::join(at, lo), "is above the prediction", "at most the prediction");
    if (!(h >= value - slack)) r.fail(json_check::join(at, hi), "is below the prediction", "at least the prediction");
  };
  pair("iteration_s_lo", "iteration_s_hi", res.iteration_s, kMaxSeconds, "seconds", i.iteration_s_lo, i.iteration_s_hi);
  pair("images_per_s_lo", "images_per_s_hi", res.images_per_s, kMaxRate, "images/s", i.images_per_s_lo, i.images_per_s_hi);
  pair("speedup_lo", "speedup_hi", res.speedup, kMaxRate, "a speedup", i.speedup_lo, i.speedup_hi);
  return i;
}

}  // namespace

Result result_from_json(const nlohmann::json& j, const Reader& r, const std::string& at) {
  r.object(j, at, "a result object");
  r.only_known(j, at, result_fields());
  Result res;
  res.model = label(j, r, at, "model");
  res.strategy = label(j, r, at, "strategy");
  if (!is_strategy(res.strategy))
    r.fail(json_check::join(at, "strategy"), "'" + res.strategy + "' is not a strategy",
           "one of " + json_check::list(strategy_names()));
  res.engine = label(j, r, at, "engine");
  const EngineInfo* engine = find_engine(res.engine);
  if (!engine) r.fail(json_check::join(at, "engine"), "'" + res.engine + "' is not an engine", engine_choices());
  res.cluster.nodes = int(whole(j, r, at, "nodes", 1, limits::kMaxNodes, "a node count"));
  res.cluster.gpus_per_node = int(whole(j, r, at, "gpus_per_node", 1, limits::kMaxGpusPerNode, "GPUs per node"));
  res.cluster.nic_gbps =
      r.number(r.require(j, at, "nic_gbps", "Gbit/s"), json_check::join(at, "nic_gbps"), 0, limits::kMaxNicGbps,
               "Gbit/s in (0, " + std::to_string(int(limits::kMaxNicGbps)) + "]", /*lo_open=*/true);
  res.cluster.latency_s = num(j, r, at, "latency_s", 0, limits::kMaxLatencyS, "seconds");
  res.cluster.server_shards = int(whole(j, r, at, "server_shards", 0, limits::kMaxShards, "a shard count"));
  const std::string placement = label(j, r, at, "server_placement");
  if (placement != "colocated" && placement != "dedicated")
    r.fail(json_check::join(at, "server_placement"), "'" + placement + "' is not a placement", "colocated or dedicated");
  res.cluster.placement = placement == "dedicated" ? ServerPlacement::dedicated : ServerPlacement::colocated;
  res.batch_per_gpu = int(whole(j, r, at, "batch_per_gpu", 1, limits::kMaxBatchPerGpu, "images per GPU"));
  res.iterations = int(whole(j, r, at, "iterations", 1, limits::kMaxIterations, "an iteration count"));
  res.simulated_iterations = int(whole(j, r, at, "simulated_iterations", 0, res.iterations, "at most the iterations"));
  if (j.contains("reduced_to_nodes"))  // nodes simulated: workers, and dedicated servers
    res.reduced_to_nodes = int(whole(j, r, at, "reduced_to_nodes", 0, res.cluster.nodes + res.cluster.server_shards,
                                     "at most the nodes and servers"));
  res.iteration_s = num(j, r, at, "iteration_s", 0, kMaxSeconds, "seconds");
  res.iteration_end_s = numbers(r.require(j, at, "iteration_end_s", "a list"), r, json_check::join(at, "iteration_end_s"),
                                std::size_t(res.iterations), 0, kMaxSeconds, "seconds");
  // Derived, not read back; an iteration's duration (end_t - end_{t-1}) can be negative under SSP.
  for (const char* derived : {"iteration_s_min", "iteration_s_max", "iteration_s_stdev"})
    if (j.contains(derived)) num(j, r, at, derived, -kMaxSeconds, kMaxSeconds, "seconds");
  for (const char* derived : {"stall_share", "traffic_max_over_mean"})
    if (j.contains(derived)) num(j, r, at, derived, -kMaxRate, kMaxRate, "a ratio");
  if (j.contains("dropped_workers")) {
    const std::string p = json_check::join(at, "dropped_workers");
    const auto& d = r.array(j["dropped_workers"], p, "a list per iteration");
    if (d.size() > std::size_t(res.iterations))
      r.fail(p, "has " + std::to_string(d.size()) + " iterations", "at most the run's iterations");
    const long long gpus = (long long)res.cluster.nodes * res.cluster.gpus_per_node;
    for (std::size_t t = 0; t < d.size(); ++t) {
      const auto& w = r.array(d[t], json_check::index(p, t), "a list of workers");
      if (w.size() > std::size_t(gpus)) r.fail(json_check::index(p, t), "lists more workers than there are", "workers");
      std::vector<int> row;
      for (std::size_t k = 0; k < w.size(); ++k)
        row.push_back(int(r.integer(w[k], json_check::index(json_check::index(p, t), k), 0, gpus - 1, "a worker")));
      res.dropped_workers.push_back(std::move(row));
    }
  }
  // A result is partial exactly when it says why (Result::partial()).
  const bool partial = j.contains("partial") && r.boolean(j["partial"], json_check::join(at, "partial"), "true or false");
  if (partial != j.contains("failure"))
    r.fail(json_check::join(at, partial ? "failure" : "partial"), partial ? "missing where partial is true" : "missing or false where failure is given",
           "a failure exactly where partial is true");
  if (partial) {
    res.failure = label(j, r, at, "failure", limits::kMaxNoteChars);
    if (res.failure.empty()) r.fail(json_check::join(at, "failure"), "is empty", "why the run is partial");
  }
  if (j.contains("training_loss")) {
    res.training_loss = numbers(j["training_loss"], r, json_check::join(at, "training_loss"), std::size_t(res.iterations),
                                0, kMaxRate, "a loss >= 0");
    if (j.contains("replicas_agree"))
      res.replicas_agree = r.boolean(j["replicas_agree"], json_check::join(at, "replicas_agree"), "true or false");
  }
  res.images_per_s = num(j, r, at, "images_per_s", 0, kMaxRate, "images/s");
  res.single_gpu_images_per_s = num(j, r, at, "single_gpu_images_per_s", 0, kMaxRate, "images/s");
  res.speedup = num(j, r, at, "speedup", 0, kMaxRate, "a speedup");
  res.efficiency = num(j, r, at, "scaling_efficiency", 0, kMaxRate, "a fraction");
  res.interval = interval_from_json(j, r, at, res);
  res.gpu_busy_s = num(j, r, at, "gpu_busy_s", 0, kMaxSeconds, "seconds");
  res.gpu_stall_s = num(j, r, at, "gpu_stall_s", -kMaxSeconds, kMaxSeconds, "seconds");  // SSP: can be < 0
  res.breakdown = breakdown_from_json(r.require(j, at, "time_s", "an object"), r, json_check::join(at, "time_s"));
  res.sent_bytes_max = num(j, r, at, "sent_bytes_per_node_max", 0, kMaxBytes, "bytes");
  res.received_bytes_max = num(j, r, at, "received_bytes_per_node_max", 0, kMaxBytes, "bytes");
  res.sent_bytes_mean = num(j, r, at, "sent_bytes_per_node_mean", 0, kMaxBytes, "bytes");
  res.received_bytes_mean = num(j, r, at, "received_bytes_per_node_mean", 0, kMaxBytes, "bytes");
  res.flows_per_iteration = num(j, r, at, "flows_per_iteration", 0, kMaxCount, "flows");
  {
    const std::string p = json_check::join(at, "layers");
    const auto& layers = r.array(r.require(j, at, "layers", "a list"), p, "a list of layer rows");
    if (layers.size() > std::size_t(limits::kMaxLayers))
      r.fail(p, "has " + std::to_string(layers.size()) + " rows", "at most " + std::to_string(limits::kMaxLayers));
    for (std::size_t i = 0; i < layers.size(); ++i) res.layers.push_back(layer_from_json(layers[i], r, json_check::index(p, i)));
  }
  {
    const std::string p = json_check::join(at, "links");
    const auto& links = r.array(r.require(j, at, "links", "a list"), p, "a list of links");
    if (!links.empty() && !engine->capabilities.per_link_stats)
      r.fail(p, "has links, but the " + res.engine + " engine records none", "an empty list");
    if (links.size() > std::size_t(4 * limits::kMaxGpus))
      r.fail(p, "has " + std::to_string(links.size()) + " links", "at most 4 per GPU");
    for (std::size_t i = 0; i < links.size(); ++i) {
      const std::string li = json_check::index(p, i);
      r.object(links[i], li, "a link");
      r.only_known(links[i], li, {"link", "bytes_per_iteration", "peak_utilization", "mean_utilization"});
      res.links.push_back(LinkUse{label(links[i], r, li, "link"),
                                  num(links[i], r, li, "bytes_per_iteration", 0, kMaxBytes, "bytes"),
                                  num(links[i], r, li, "peak_utilization", 0, kMaxRate, "a fraction"),
                                  num(links[i], r, li, "mean_utilization", 0, kMaxRate, "a fraction")});
    }
  }
  if (j.contains("timeline")) {
    const std::string p = json_check::join(at, "timeline");
    const auto& events = r.array(j["timeline"], p, "a list of events");
    if (events.size() > kMaxTimelineEvents)
      r.fail(p, "has " + std::to_string(events.size()) + " events", "at most " + std::to_string(kMaxTimelineEvents));
    res.timeline.reserve(events.size());
    for (std::size_t i = 0; i < events.size(); ++i)
      res.timeline.push_back(event_from_json(events[i], r, json_check::index(p, i), res));
  }
  return res;
}

void check_derived_rates(const nlohmann::json& j, const Result& res, const Reader& r, const std::string& at) {
  Result again = res;
  again.finish(res.single_gpu_images_per_s);
  const auto check = [&](const char* key, double got, double want, const char* how) {
    if (std::fabs(got - want) <= 1e-9 * std::max(std::fabs(want), 1e-300)) return;
    char b[200];
    std::snprintf(b, sizeof b, "is %.6g, but %s is %.6g", got, how, want);
    r.fail(json_check::join(at, key), b,
           "the figures of one run, which agree: a record edited by hand (rerun the point, don't edit it)");
  };
  check("images_per_s", res.images_per_s, again.images_per_s, "batch_per_gpu x nodes x gpus_per_node / iteration_s");
  check("speedup", res.speedup, again.speedup, "images_per_s / single_gpu_images_per_s");
  check("scaling_efficiency", res.efficiency, again.efficiency, "speedup / GPUs");
  // Written beside the figures they follow from, read back only to be checked.
  if (j.contains("stall_share") && j["stall_share"].is_number())
    check("stall_share", j["stall_share"].get<double>(), res.stall_share(), "gpu_stall_s / iteration_s");
  if (j.contains("traffic_max_over_mean") && j["traffic_max_over_mean"].is_number())
    check("traffic_max_over_mean", j["traffic_max_over_mean"].get<double>(), res.traffic_imbalance(),
          "the busiest node's bytes over the mean node's");
}

Result result_from_json(const nlohmann::json& j) { return result_from_json(j, Reader("result"), ""); }

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string results_csv(const std::vector<Result>& results) {
  std::ostringstream out;
  out.precision(10);
  out << "model,strategy,engine,nodes,gpus_per_node,nic_gbps,latency_s,server_shards,"
         "batch_per_gpu,iteration_s,iteration_s_min,iteration_s_max,iteration_s_stdev,images_per_s,speedup,scaling_efficiency,gpu_busy_s,"
         "gpu_stall_s,stall_share,sent_bytes_per_node_max,received_bytes_per_node_max,"
         "sent_bytes_per_node_mean,received_bytes_per_node_mean,reduced_to_nodes,dropped_worker_steps,partial";
  for (std::size_t i = 0; i < kTimeShares; ++i) out << ',' << column_name(TimeShare(i));
  // Interval columns only where a run propagated one: other files keep their columns.
  const bool intervals = std::any_of(results.begin(), results.end(), [](const Result& r) { return bool(r.interval); });
  if (intervals) out << ",iteration_s_lo,iteration_s_hi,images_per_s_lo,images_per_s_hi,speedup_lo,speedup_hi";
  out << '\n';
  for (const Result& r : results) {
    const Result::Spread spread = r.iteration_spread();
    out << csv_cell(r.model) << ',' << r.strategy << ',' << r.engine << ',' << r.cluster.nodes << ','
        << r.cluster.gpus_per_node << ',' << r.cluster.nic_gbps << ',' << r.cluster.latency_s << ','
        << r.cluster.server_shards << ',' << r.batch_per_gpu << ',' << r.iteration_s << ','
        << spread.min_s << ',' << spread.max_s << ',' << spread.stdev_s << ','
        << r.images_per_s << ',' << r.speedup << ',' << r.efficiency << ',' << r.gpu_busy_s << ','
        << r.gpu_stall_s << ',' << r.stall_share() << ',' << r.sent_bytes_max << ','
        << r.received_bytes_max << ',' << r.sent_bytes_mean << ',' << r.received_bytes_mean << ','
        << r.reduced_to_nodes << ',' << r.dropped_worker_steps() << ',' << (r.partial() ? 1 : 0);
    for (double v : r.breakdown.s) out << ',' << v;
    if (intervals && r.interval)
      out << ',' << r.interval->iteration_s_lo << ',' << r.interval->iteration_s_hi << ',' << r.interval->images_per_s_lo
          << ',' << r.interval->images_per_s_hi << ',' << r.interval->speedup_lo << ',' << r.interval->speedup_hi;
    else if (intervals)
      out << ",,,,,,";
    out << '\n';
  }
  return out.str();
}

}  // namespace possim
