// Profile JSON ("possim-profile-1"): parsing, with every field range-checked, and the three
// layer-timing rules of profile.hpp.
#include "model/input/profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/input/sha256.hpp"

namespace possim {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFormat = "possim-profile-1";

// Efficiency of a kind that kind_efficiency leaves out (conv and fc must be given). Those
// kinds are memory-bound element-wise passes: the zoo counts about one operation per
// element and a pass moves about 8 bytes per element (read + write, fp32), so a GPU with
// ~250 GB/s of achieved DRAM bandwidth does ~30 G operations/s -- 0.5% of a 6.6 TFLOP/s
// peak. A default has to exist for profiles that only know their GEMM rates.
constexpr double kMemoryBoundEfficiency = 0.005;

// Generous sanity bounds: they catch unit slips (Gbit for bytes, ms for s), not hardware.
constexpr double kMaxFlops = 1e18, kMaxBytesPerS = 1e13, kMaxSeconds = 60, kMaxSlowdown = 100;

// clang-format off
const std::vector<std::string> kTopFields = {
    "format", "name", "device", "peak_flops_per_s", "kind_efficiency", "peak_flops_per_s_by_precision",
    "kind_efficiency_by_precision", "throughput", "measured",
    "pcie_bytes_per_s", "pcie_latency_s", "d2d_bytes_per_s", "tcp_goodput", "tcp_host_bytes_per_s",
    "rdma_efficiency", "per_message_s",
    "server_apply_bytes_per_s", "rebuild_flops_per_s", "quantize_bytes_per_s", "per_iteration_s",
    "server_per_peer_s", "runtime_copy_bytes_per_s", "client_pass_bytes_per_s",
    "server_update_bytes_per_s", "step_sync_s", "collective_launch_s", "optimizer_bytes_per_s",
    "interference_kernel_slowdown", "interference_comm_slowdown", "stacks",
    "default_stacks", "sources", "fit_covariance"};
// clang-format on

using json_check::Reader;

// A string; an empty one fails when non_empty.
std::string text(const Reader& r, const json& v, const std::string& path, bool non_empty = true) {
  // Printable: a profile's names and sources reach terminals, results and reports.
  const std::string s = r.label(v, path, limits::kMaxNoteChars, "a string");
  if (non_empty && s.empty()) r.fail(path, "is empty", "a non-empty string");
  return s;
}

const json& object(const Reader& r, const json& v, const std::string& path) {
  return r.object(v, path, "a JSON object");
}

std::string format_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

Precision read_precision(const Reader& r, const json& v, const std::string& at) {
  std::string names;
  for (const auto& n : precision_names()) names += (names.empty() ? "" : ", ") + n;
  const std::string name = text(r, v, at);
  const auto p = precision_from_string(name);
  if (!p) r.fail(at, "'" + json_check::quoted(name) + "' is not a precision", "one of " + names);
  return *p;
}

std::vector<ThroughputPoint> read_throughput(const Reader& r, const json& v) {
  std::vector<ThroughputPoint> out;
  std::set<std::pair<std::string, int>> seen;  // (model@framework, batch)
  r.array(v, "throughput", "a list of {model, batch, images_per_s, source}");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = json_check::index("throughput", i);
    const json& e = object(r, v[i], at);
    r.only_known(e, at, {"model", "batch", "images_per_s", "source", "framework", "precision"});
    ThroughputPoint p;
    p.model = text(r, r.require(e, at, "model", "a model name"), at + ".model");
    p.batch = int(r.integer(r.require(e, at, "batch", "a batch size >= 1"), at + ".batch", 1,
                            1 << 20, "a batch size in [1, 1048576]"));
    p.images_per_s = r.number(r.require(e, at, "images_per_s", "images per second > 0"),
                              at + ".images_per_s", 0, 1e9, "images per second in (0, 1e9]",
                              /*lo_open=*/true);
    p.source = text(r, r.require(e, at, "source", "where the number came from"), at + ".source");
    if (e.contains("framework")) p.framework = text(r, e["framework"], at + ".framework");
    if (e.contains("precision")) p.precision = read_precision(r, e["precision"], at + ".precision");
    if (!seen.insert({p.model + "@" + p.framework + "@" + to_string(p.precision), p.batch}).second)
      r.fail(at, "second point for " + p.model + " at batch " + std::to_string(p.batch) +
                     (p.framework.empty() ? "" : " under " + p.framework) + " in " + to_string(p.precision),
             "one point per model, batch, framework and precision");
    out.push_back(p);
  }
  return out;
}

std::vector<MeasuredModel> read_measured(const Reader& r, const json& v) {
  std::vector<MeasuredModel> out;
  std::set<std::pair<std::string, int>> seen;
  r.array(v, "measured", "a list of {model, batch, source, layers}");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = json_check::index("measured", i);
    const json& e = object(r, v[i], at);
    r.only_known(e, at, {"model", "batch", "source", "layers", "precision"});
    MeasuredModel m;
    m.model = text(r, r.require(e, at, "model", "a model name"), at + ".model");
    m.batch = int(r.integer(r.require(e, at, "batch", "a batch size >= 1"), at + ".batch", 1,
                            1 << 20, "a batch size in [1, 1048576]"));
    m.source = text(r, r.require(e, at, "source", "where the timings came from"), at + ".source");
    if (e.contains("precision")) m.precision = read_precision(r, e["precision"], at + ".precision");
    const std::string lat = at + ".layers";
    const json& layers =
        r.array(r.require(e, at, "layers", "a list of {layer, forward_s, backward_s}"), lat,
                "a list of {layer, forward_s, backward_s}");
    if (layers.empty()) r.fail(lat, "is empty", "one entry per layer of the model");
    std::set<std::string> names;
    for (std::size_t k = 0; k < layers.size(); ++k) {
      const std::string lk = json_check::index(lat, k);
      const json& le = object(r, layers[k], lk);
      r.only_known(le, lk, {"layer", "forward_s", "backward_s"});
      LayerTiming t;
      t.layer = text(r, r.require(le, lk, "layer", "a layer name"), lk + ".layer");
      const std::string secs = "seconds in [0, " + format_number(kMaxSeconds) + "]";
      t.forward_s =
          r.number(r.require(le, lk, "forward_s", secs), lk + ".forward_s", 0, kMaxSeconds, secs);
      t.backward_s =
          r.number(r.require(le, lk, "backward_s", secs), lk + ".backward_s", 0, kMaxSeconds, secs);
      if (!names.insert(t.layer).second)
        r.fail(lk + ".layer", "layer '" + t.layer + "' appears twice", "one entry per layer");
      m.layers.push_back(t);
    }
    if (!seen.insert({m.model + "@" + to_string(m.precision), m.batch}).second)
      r.fail(at, "second timing set for " + m.model + " at batch " + std::to_string(m.batch) + " in " +
                     to_string(m.precision),
             "one per model, batch and precision");
    out.push_back(std::move(m));
  }
  return out;
}

std::map<LayerKind, double> read_efficiency(const Reader& r, const json& v, const std::string& where = "kind_efficiency",
                                           bool partial = false) {
  std::map<LayerKind, double> out;
  object(r, v, where);
  for (const auto& item : v.items()) {
    const std::string at = where + "." + item.key();
    LayerKind k;
    try {
      k = layer_kind_from_string(item.key());
    } catch (const std::invalid_argument&) {
      r.fail(at, "unknown layer kind",
             "conv, fc, bn, pool, relu, lrn, concat, add, dropout or softmax");
    }
    out[k] = r.number(item.value(), at, 0, 1, "a fraction in (0, 1]", /*lo_open=*/true);
  }
  for (LayerKind k : {LayerKind::conv, LayerKind::fc})
    if (!partial && !out.count(k))
      r.fail(std::string("kind_efficiency.") + to_string(k), "missing",
             "a fraction in (0, 1]; only memory-bound kinds may be left out (they default to " +
                 format_number(kMemoryBoundEfficiency) + ")");
  return out;
}

// Per-layer kernel timings hold for every precision that runs the same kernels: the same
// math on the same activation type (bf16 and amp_bf16; the master weights' type is the
// optimizer's business, not a layer's).
bool same_kernels(Precision a, Precision b) {
  return std::string(math_of(a)) == math_of(b) && activation_dtype(a) == activation_dtype(b);
}

const MeasuredModel* find_measured(const Profile& p, const Network& net, int batch) {
  for (const auto& m : p.measured)
    if (m.model == net.name && m.batch == batch && same_kernels(m.precision, p.numerics.precision)) return &m;
  return nullptr;
}

// Nearest batch; on a tie the larger batch (the GPU is nearer saturation there). Points of
// the profile's framework (or of none) first; another framework's only when it has none:
// the same kernels under another framework are a better guess than the FLOP model alone.
const ThroughputPoint* find_point_of(const Profile& p, const Network& net, int batch,
                                     bool same_framework) {
  const ThroughputPoint* best = nullptr;
  for (const auto& t : p.throughput) {
    if (t.model != net.name || t.precision != p.numerics.precision) continue;
    if (same_framework && !t.framework.empty() && !p.framework.empty() && t.framework != p.framework)
      continue;
    if (!best) {
      best = &t;
      continue;
    }
    const int d = std::abs(t.batch - batch), bd = std::abs(best->batch - batch);
    if (d < bd || (d == bd && t.batch > best->batch)) best = &t;
  }
  return best;
}

const ThroughputPoint* find_point(const Profile& p, const Network& net, int batch) {
  if (const ThroughputPoint* t = find_point_of(p, net, batch, true)) return t;
  return find_point_of(p, net, batch, false);
}


// A layer's achieved FLOP/s and the factor on its time at the applied precision. GEMMs and
// convolutions: the math's peak x its efficiency (the fp32 efficiency where none is given).
// Memory-bound passes: the fp32 rate, their time scaled by the bytes of an activation
// (a 16-bit pass moves half the bytes of an fp32 one).
std::pair<double, double> rate_and_factor(const Profile& p, LayerKind k) {
  const Precision prec = p.numerics.precision;
  if (prec == Precision::fp32) return {p.peak_flops_per_s * p.efficiency_of(k), 1.0};
  if (!compute_bound_kind(k))
    return {p.peak_flops_per_s * p.efficiency_of(k), bytes_per_value(activation_dtype(prec)) / 4};
  double eff = p.efficiency_of(k);
  auto m = p.kind_efficiency_by_math.find(math_of(prec));
  if (m != p.kind_efficiency_by_math.end()) {
    auto e = m->second.find(k);
    if (e != m->second.end()) eff = e->second;
  }
  return {p.peak_for(prec) * eff, 1.0};
}

std::vector<LayerTime> flop_times(const Profile& p, const Network& net, int batch) {
  std::vector<LayerTime> out;
  for (const Layer& l : net.layers) {
    const auto [rate, factor] = rate_and_factor(p, l.kind);  // x 1.0 is exact: fp32 unchanged
    out.push_back({batch * l.fwd_flops / rate * factor, batch * l.bwd_flops / rate * factor});
  }
  return out;
}

double sum(const std::vector<LayerTime>& t) {
  double s = 0;
  for (const auto& x : t) s += x.forward_s + x.backward_s;
  return s;
}

// Factor that makes the FLOP model's iteration at the point's batch (plus the fixed
// per-iteration cost) take point.batch / images_per_s. FLOP times are linear in batch.
double scale_factor(const Profile& p, const Network& net, const ThroughputPoint& pt) {
  const double model_s = sum(flop_times(p, net, pt.batch));
  const double target_s = pt.batch / pt.images_per_s - p.per_iteration_s;
  if (model_s <= 0) throw std::invalid_argument(net.name + " has no FLOPs to scale");
  if (target_s <= 0)
    throw InputError(
        p.path, "throughput",
        "the " + net.name + " point leaves no time for the layers after per_iteration_s",
        "batch / images_per_s > per_iteration_s");
  return target_s / model_s;
}

void check_batch(int batch) {
  if (batch < 1) throw std::invalid_argument("layer_times: batch must be >= 1");
}

// "stacks": {"NAME": {"description", "framework", PARAMETER: value, ..., "sources": {...}}}
std::map<std::string, SoftwareStack> read_stacks(const Reader& r, const json& v) {
  std::map<std::string, SoftwareStack> out;
  object(r, v, "stacks");
  std::vector<std::string> fields = {"description", "framework", "sync_after_backward", "sources"};
  for (const auto& n : stack_parameter_names()) fields.push_back(n);
  for (const auto& item : v.items()) {
    const std::string at = "stacks." + item.key();
    const json& e = object(r, item.value(), at);
    r.only_known(e, at, fields);
    SoftwareStack st;
    st.name = item.key();
    if (st.name.empty()) r.fail(at, "has an empty name", "a stack name");
    if (e.contains("description")) st.description = text(r, e["description"], at + ".description", false);
    if (e.contains("framework")) st.framework = text(r, e["framework"], at + ".framework");
    if (e.contains("sync_after_backward")) {
      if (!e["sync_after_backward"].is_boolean())
        r.fail(at + ".sync_after_backward", json_check::describe(e["sync_after_backward"]) + " is not a boolean",
               "true or false");
      st.sync_after_backward = e["sync_after_backward"].get<bool>();
    }
    for (const auto& n : stack_parameter_names()) {
      if (!e.contains(n)) continue;
      const bool rate = n.find("bytes_per_s") != std::string::npos;
      const bool optional_rate = n == "runtime_copy_bytes_per_s" ||
                                 n == "client_pass_bytes_per_s" || n == "server_update_bytes_per_s";
      const double hi = rate ? kMaxBytesPerS : (n == "per_iteration_s" ? kMaxSeconds : 1.0);
      const std::string unit = rate ? "bytes/s" : "seconds";
      st.params[n] = r.number(e[n], at + "." + n, 0, hi,
                              std::string(rate && !optional_rate ? "a rate in (0, " : "a value in [0, ") +
                                  format_number(hi) + "] " + unit,
                              /*lo_open=*/rate && !optional_rate);
    }
    if (e.contains("sources")) {
      const json& src = object(r, e["sources"], at + ".sources");
      r.only_known(src, at + ".sources", fields);
      for (const auto& s : src.items())
        st.sources[s.key()] = text(r, s.value(), at + ".sources." + s.key());
    }
    out[st.name] = std::move(st);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& stack_parameter_names() {
  static const std::vector<std::string> n = {
      "server_apply_bytes_per_s", "per_message_s",           "per_iteration_s",
      "server_per_peer_s",        "runtime_copy_bytes_per_s", "quantize_bytes_per_s",
      "client_pass_bytes_per_s",  "server_update_bytes_per_s", "step_sync_s",
      "collective_launch_s"};
  return n;
}

namespace {
// The node's physics a fit may free: no stack overrides them.
const std::vector<std::string>& physics_parameter_names() {
  static const std::vector<std::string> n = {"tcp_goodput",   "tcp_host_bytes_per_s", "pcie_bytes_per_s",
                                             "compute_scale", "tensor_core_scale",    "tf32_scale",
                                             "memory_bound_scale"};
  return n;
}
}  // namespace

const std::vector<std::string>& fit_parameter_names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v = physics_parameter_names();
    for (const auto& s : stack_parameter_names()) v.push_back(s);
    return v;
  }();
  return n;
}

bool is_physics_parameter(const std::string& name) {
  const auto& n = physics_parameter_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

bool is_fit_parameter_name(const std::string& name) {
  const auto dot = name.find('.');
  const std::string param = dot == std::string::npos ? name : name.substr(dot + 1);
  const auto& names = dot == std::string::npos ? fit_parameter_names() : stack_parameter_names();
  return std::find(names.begin(), names.end(), param) != names.end();
}

double* Profile::parameter_field(const std::string& n) {
  if (n == "server_apply_bytes_per_s") return &server_apply_bytes_per_s;
  if (n == "per_message_s") return &per_message_s;
  if (n == "per_iteration_s") return &per_iteration_s;
  if (n == "server_per_peer_s") return &server_per_peer_s;
  if (n == "runtime_copy_bytes_per_s") return &runtime_copy_bytes_per_s;
  if (n == "quantize_bytes_per_s") return &quantize_bytes_per_s;
  if (n == "client_pass_bytes_per_s") return &client_pass_bytes_per_s;
  if (n == "server_update_bytes_per_s") return &server_update_bytes_per_s;
  if (n == "step_sync_s") return &step_sync_s;
  if (n == "collective_launch_s") return &collective_launch_s;
  return nullptr;
}

double Profile::parameter(const std::string& n) const {
  const double* f = const_cast<Profile*>(this)->parameter_field(n);
  if (!f) throw std::invalid_argument("not a stack parameter: " + n);
  return *f;
}

const SoftwareStack& Profile::stack_named(const std::string& name) const {
  auto it = stacks.find(name);
  if (it == stacks.end()) {
    std::string names;
    for (const auto& [n, _] : stacks) names += (names.empty() ? "" : ", ") + n;
    throw InputError(path, "stacks", "no stack named '" + name + "'",
                     names.empty() ? "a profile with a stacks section" : "one of " + names);
  }
  return it->second;
}

Profile Profile::with_stack(const std::string& name) const {
  const SoftwareStack& stack = stack_named(name);
  Profile p = *this;
  for (const auto& [n, v] : stack.params) *p.parameter_field(n) = v;
  p.framework = stack.framework;
  p.sync_after_backward = stack.sync_after_backward;
  p.stack = name;
  return p;
}

std::string Profile::stack_for(const std::string& strategy, const std::string& chosen) const {
  if (!chosen.empty()) return chosen;
  auto it = default_stacks.find(strategy);
  return it == default_stacks.end() ? "" : it->second;
}

Profile Profile::for_strategy(const std::string& strategy, const std::string& chosen) const {
  const std::string s = stack_for(strategy, chosen);
  return s.empty() ? *this : with_stack(s);
}

std::vector<LayerTime> Profile::layer_times(const Network& net, int batch) const {
  check_batch(batch);
  if (const MeasuredModel* m = find_measured(*this, net, batch)) {
    std::map<std::string, const LayerTiming*> by_name;
    for (const auto& t : m->layers) by_name[t.layer] = &t;
    std::vector<LayerTime> out;
    for (const Layer& l : net.layers) {
      auto it = by_name.find(l.name);
      // Half-measured, half-modelled times would be silently inconsistent: refuse.
      if (it == by_name.end())
        throw InputError(path, "measured[" + std::to_string(m - measured.data()) + "].layers",
                         "no timing for layer '" + l.name + "' of " + net.name + " at batch " +
                             std::to_string(batch),
                         "one entry per layer of the model");
      out.push_back({it->second->forward_s, it->second->backward_s});
    }
    return out;
  }
  std::vector<LayerTime> out = flop_times(*this, net, batch);
  if (const ThroughputPoint* pt = find_point(*this, net, batch)) {
    const double f = scale_factor(*this, net, *pt);
    for (auto& t : out) {
      t.forward_s *= f;
      t.backward_s *= f;
    }
  }
  return out;
}

std::string Profile::compute_source(const Network& net, int batch) const {
  check_batch(batch);
  const bool fp32 = numerics.precision == Precision::fp32;
  const std::string at = fp32 ? "" : std::string(" in ") + to_string(numerics.precision);
  if (const MeasuredModel* m = find_measured(*this, net, batch))
    return "measured per-layer timings for " + net.name + " at batch " + std::to_string(batch) + at +
           " (" + m->source + ")";
  const std::string flop =
      fp32 ? "FLOP model (peak " + format_number(peak_flops_per_s) + " FLOP/s x kind efficiency)"
           : std::string("FLOP model in ") + to_string(numerics.precision) + " (" + math_of(numerics.precision) +
                 " peak " + format_number(peak_for(numerics.precision)) +
                 " FLOP/s x kind efficiency for conv and fc; memory-bound kinds at the fp32 rate x " +
                 format_number(bytes_per_value(activation_dtype(numerics.precision)) / 4) + " for " +
                 to_string(activation_dtype(numerics.precision)) + " activations)";
  if (const ThroughputPoint* pt = find_point(*this, net, batch))
    return flop + " scaled x" + format_number(scale_factor(*this, net, *pt)) + " to " +
           format_number(pt->images_per_s) + " images/s at batch " + std::to_string(pt->batch) +
           (pt->framework.empty() ? "" : " under " + pt->framework) + " (" + pt->source + ")";
  return flop + " alone: no measurement of " + net.name + at + " in profile " + name;
}

double Profile::efficiency_of(LayerKind k) const {
  auto it = kind_efficiency.find(k);
  return it == kind_efficiency.end() ? kMemoryBoundEfficiency : it->second;
}

double Profile::peak_for(Precision p) const {
  const std::string math = math_of(p);
  if (math == "fp32") return peak_flops_per_s;
  auto it = peak_flops_by_math.find(math);
  return it == peak_flops_by_math.end() ? 0.0 : it->second;
}

Profile Profile::with_numerics(const Numerics& n) const {
  Profile p = *this;
  p.numerics = n;
  if (p.peak_for(n.precision) > 0) return p;
  std::string have = "fp32";
  for (const auto& name : precision_names())
    if (name != "fp32" && peak_for(*precision_from_string(name)) > 0) have += ", " + name;
  throw InputError(path, std::string("peak_flops_per_s_by_precision.") + math_of(n.precision),
                   "profile " + name + " (" + device + ") has no " + math_of(n.precision) +
                       " peak, so it cannot run at precision " + to_string(n.precision),
                   "a precision it has a peak for: " + have);
}

double Profile::rebuild_flops_at_precision() const {
  if (numerics.precision == Precision::fp32) return rebuild_flops_per_s;
  const double ratio = peak_for(numerics.precision) / peak_flops_per_s;
  return rebuild_flops_per_s * ratio;
}

std::string Profile::unmeasured_caveat() const {
  const Precision p = numerics.precision;
  if (measured_at(p)) return "";
  const bool tensor = p != Precision::fp32;
  bool own_efficiency = false;
  if (tensor) {
    auto m = kind_efficiency_by_math.find(math_of(p));
    own_efficiency = m != kind_efficiency_by_math.end() && !m->second.empty();
  }
  return "profile " + name + " has no measured point at " + to_string(p) +
         ": its layer times are the FLOP model alone (" +
         (tensor ? std::string(math_of(p)) + " tensor-core peak x " +
                       (own_efficiency ? "its kind efficiencies" : "the fp32 kind efficiencies")
                 : std::string("peak x kind efficiency")) +
         "), not a measurement";
}

namespace {
const char* const kFitMark = "fitted by possim calibrate fit";
const char* const kComputeSources[] = {"peak_flops_per_s", "peak_flops_per_s_by_precision", "kind_efficiency"};

// A compute source calibrate fit wrote: "... to FILE [precisions: A B] (N points, ...".
std::optional<Profile::ComputeFit> compute_fit_of(const std::string& text) {
  const std::size_t fit = text.find(kFitMark);
  const std::size_t to = text.find(" engine) to ", fit == std::string::npos ? 0 : fit);
  const std::size_t open = text.find(" [precisions: ", to == std::string::npos ? 0 : to);
  if (fit == std::string::npos || to == std::string::npos || open == std::string::npos) return std::nullopt;
  const std::size_t close = text.find("] (", open);
  if (close == std::string::npos) return std::nullopt;
  Profile::ComputeFit f;
  f.file = text.substr(to + 12, open - (to + 12));
  std::istringstream names(text.substr(open + 14, close - (open + 14)));
  for (std::string n; names >> n;) f.precisions.push_back(n);
  f.points = std::atoi(text.c_str() + close + 3);
  return f;
}
}  // namespace

std::vector<Profile::ComputeFit> Profile::compute_fits() const {
  std::vector<ComputeFit> out;
  for (const char* key : kComputeSources)
    if (auto it = sources.find(key); it != sources.end())
      if (auto f = compute_fit_of(it->second)) out.push_back(*f);
  return out;
}

std::string Profile::provenance_line() const {
  std::string out, base;
  const std::string derived = "possim profile derive from profile ";
  // The derivation's own text, where a fit has not rewritten it (kinds, or the peak).
  std::string derivation;
  for (const char* key : {"peak_flops_per_s", "kind_efficiency"})
    if (auto it = sources.find(key); derivation.empty() && it != sources.end() && it->second.rfind(derived, 0) == 0)
      derivation = it->second;
  if (!derivation.empty()) {
    const std::string rest = derivation.substr(derived.size());
    base = rest.substr(0, rest.find(' '));
    out = "derived from " + base + " by the roofline";
  } else {
    out = "measured on its device";
    // A measured device on a derived profile (calibrate kernels --base h200): its software
    // and network parameters still come from the derivation's base.
    const std::string copied = "copied unchanged from base profile ";
    for (const auto& [_, text] : sources)
      if (auto at = text.find(copied); at != std::string::npos) {
        const std::string rest = text.substr(at + copied.size());
        base = rest.substr(0, rest.find(' '));
        break;
      }
  }
  // The compute fitted to points (single-GPU throughputs, as a rule): said apart.
  const std::vector<ComputeFit> fits = compute_fits();
  if (!fits.empty()) {
    const ComputeFit& f = fits.front();
    std::string at;
    for (const auto& n : f.precisions) at += (at.empty() ? "" : ", ") + n;
    out += ", compute fitted to " + std::to_string(f.points) + " measured point" + (f.points == 1 ? "" : "s") +
           " at " + at + " (" + f.file + ")";
  }
  std::size_t points = 0, sets = 0, here = 0;
  for (const auto& t : throughput) {
    ++points;
    here += t.precision == numerics.precision;
  }
  for (const auto& m : measured) {
    ++sets;
    here += same_kernels(m.precision, numerics.precision);
  }
  if (points + sets == 0) {
    if (fits.empty()) out += ", no measured point";
  } else {
    out += ", " + std::to_string(points) + " throughput point" + (points == 1 ? "" : "s") + " and " +
           std::to_string(sets) + " per-layer timing set" + (sets == 1 ? "" : "s") + " (" + std::to_string(here) +
           " at " + to_string(numerics.precision) + ")";
  }
  std::size_t fitted = 0;
  const std::string fit = kFitMark;
  for (const auto& [key, text] : sources)
    fitted += text.find(fit) != std::string::npos && !compute_fit_of(text);
  for (const auto& [_, st] : stacks)
    for (const auto& [__, text] : st.sources) fitted += text.find(fit) != std::string::npos;
  if (fitted > 0)
    out += ", " + std::to_string(fitted) + " parameters fitted to measured iterations" +
           (base.empty() ? "" : " of " + base + "'s cluster (its software and network, carried over)");
  return out;
}

bool Profile::measured_at(Precision p) const {
  for (const auto& t : throughput)
    if (t.precision == p) return true;
  for (const auto& m : measured)
    if (same_kernels(m.precision, p)) return true;
  for (const ComputeFit& f : compute_fits())
    if (std::find(f.precisions.begin(), f.precisions.end(), to_string(p)) != f.precisions.end()) return true;
  return false;
}

// "peak_flops_per_s_by_precision": {"tf32"|"fp16"|"bf16": FLOP/s}, and
// "kind_efficiency_by_precision": {MATH: {kind: fraction}} for a math that has a peak.
static void read_precision_peaks(const Reader& r, const json& j, Profile& p) {
  const std::vector<std::string> maths = {"tf32", "fp16", "bf16"};
  const std::string peaks = "peak_flops_per_s_by_precision";
  if (j.contains(peaks)) {
    object(r, j[peaks], peaks);
    r.only_known(j[peaks], peaks, maths);
    for (const auto& item : j[peaks].items())
      p.peak_flops_by_math[item.key()] =
          r.number(item.value(), peaks + "." + item.key(), 0, kMaxFlops,
                   "a tensor-core peak in (0, " + format_number(kMaxFlops) + "] FLOP/s", /*lo_open=*/true);
  }
  const std::string effs = "kind_efficiency_by_precision";
  if (!j.contains(effs)) return;
  object(r, j[effs], effs);
  r.only_known(j[effs], effs, maths);
  for (const auto& item : j[effs].items()) {
    const std::string at = effs + "." + item.key();
    if (!p.peak_flops_by_math.count(item.key()))
      r.fail(at, "no " + peaks + "." + item.key() + " to be a fraction of", "a math the profile has a peak for");
    p.kind_efficiency_by_math[item.key()] = read_efficiency(r, item.value(), at, /*partial=*/true);
    for (const auto& [kind, _] : p.kind_efficiency_by_math[item.key()])
      if (kind != LayerKind::conv && kind != LayerKind::fc)
        r.fail(at + "." + to_string(kind), "is memory-bound: its time scales with the activations' bytes",
               "conv or fc only");
  }
}

// "stacks" and "default_stacks": every default names a stack, and every stack leaves the
// profile valid once applied.
static void read_stack_section(const Reader& r, const json& j, Profile& p) {
  if (j.contains("stacks")) p.stacks = read_stacks(r, j["stacks"]);
  if (j.contains("default_stacks")) {
    const json& d = object(r, j["default_stacks"], "default_stacks");
    for (const auto& item : d.items()) {
      const std::string at = "default_stacks." + item.key();
      const std::string name = text(r, item.value(), at);
      if (!p.stacks.count(name)) r.fail(at, "no stack named '" + name + "'", "a key of stacks");
      p.default_stacks[item.key()] = name;
    }
  }
  for (const auto& [name, st] : p.stacks) {
    const Profile applied = p.with_stack(name);
    for (std::size_t i = 0; i < applied.throughput.size(); ++i)
      if (applied.throughput[i].batch / applied.throughput[i].images_per_s <= applied.per_iteration_s)
        r.fail("stacks." + name + ".per_iteration_s", "leaves no time for the layers of " +
                   applied.throughput[i].model, "less than batch / images_per_s of every point");
  }

}

// "fit_covariance": what possim calibrate fit wrote; checked whole, since a run multiplies
// parameters by exp() of it.
static FitCovariance read_fit_covariance(const Reader& r, const json& v, const Profile& p) {
  const std::string at = "fit_covariance";
  object(r, v, at);
  r.only_known(v, at, {"parameters", "log_covariance", "source"});
  FitCovariance c;
  const json& names = r.array(r.require(v, at, "parameters", "a list of fitted parameter names"),
                              at + ".parameters", "a list of fitted parameter names");
  if (names.empty() || names.size() > 64)
    r.fail(at + ".parameters", "has " + std::to_string(names.size()) + " names", "1 to 64 names");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string where = json_check::index(at + ".parameters", i);
    const std::string n = text(r, names[i], where);
    const auto dot = n.find('.');
    if (!is_fit_parameter_name(n) || (dot != std::string::npos && !p.stacks.count(n.substr(0, dot)))) r.fail(where, "'" + n + "' is not a parameter a fit frees here", "a name of possim calibrate fit --free");
    if (std::find(c.parameters.begin(), c.parameters.end(), n) != c.parameters.end())
      r.fail(where, "'" + n + "' is listed twice", "each parameter once");
    c.parameters.push_back(n);
  }
  const std::size_t k = c.parameters.size();
  const json& rows = r.array(r.require(v, at, "log_covariance", "a square matrix"), at + ".log_covariance",
                             "a square matrix: one row per parameter");
  if (rows.size() != k)
    r.fail(at + ".log_covariance", "has " + std::to_string(rows.size()) + " rows for " + std::to_string(k) + " parameters",
           "one row per parameter");
  constexpr double kMaxLogVariance = FitCovariance::kMaxLogVariance;
  for (std::size_t i = 0; i < k; ++i) {
    const std::string row = json_check::index(at + ".log_covariance", i);
    const json& cols = r.array(rows[i], row, "a row of numbers");
    if (cols.size() != k)
      r.fail(row, "has " + std::to_string(cols.size()) + " numbers", std::to_string(k) + " numbers");
    c.log_covariance.emplace_back();
    for (std::size_t j = 0; j < k; ++j)
      c.log_covariance[i].push_back(r.number(cols[j], json_check::index(row, j), i == j ? 0 : -kMaxLogVariance,
                                             kMaxLogVariance, i == j ? "a log-variance in [0, 25]" : "a log-covariance in [-25, 25]"));
  }
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const double a = c.log_covariance[i][j], b = c.log_covariance[j][i];
      if (std::fabs(a - b) > 1e-9 * std::max(std::fabs(a), std::fabs(b)) ||
          a * a > c.log_covariance[i][i] * c.log_covariance[j][j] * (1 + 1e-9))
        r.fail(json_check::index(json_check::index(at + ".log_covariance", i), j),
               "is not a covariance with its transpose and diagonal",
               "symmetric, |c_ij| <= sqrt(c_ii c_jj)");
    }
  c.source = v.contains("source") ? text(r, v["source"], at + ".source") : "";
  return c;
}

Profile parse_profile(const std::string& json_text, const std::string& where) {
  const Reader r(where);
  json j = r.parse(json_text, "a possim-profile-1 JSON object");
  if (!j.is_object()) r.fail("", "top level is " + std::string(j.type_name()), "a JSON object");
  r.only_known(j, "", kTopFields);

  Profile p;
  p.path = where;
  p.sha256 = sha256_hex(json_text);
  const std::string format =
      text(r, r.require(j, "", "format", std::string("\"") + kFormat + "\""), "format");
  if (format != kFormat)
    r.fail("format", "\"" + format + "\" is not supported", std::string("\"") + kFormat + "\"");
  p.name = text(r, r.require(j, "", "name", "a profile name"), "name");
  if (j.contains("device")) p.device = text(r, j["device"], "device", false);

  // Required rates: a zero here would divide by zero downstream.
  const auto rate = [&](const char* key, double hi, const std::string& unit) {
    const std::string e = "a rate in (0, " + format_number(hi) + "] " + unit;
    return r.number(r.require(j, "", key, e), key, 0, hi, e, /*lo_open=*/true);
  };
  // Optional fixed costs default to 0.
  const auto seconds = [&](const char* key, double hi) {
    if (!j.contains(key)) return 0.0;
    return r.number(j[key], key, 0, hi, "seconds in [0, " + format_number(hi) + "]");
  };
  p.peak_flops_per_s = rate("peak_flops_per_s", kMaxFlops, "FLOP/s");
  p.pcie_bytes_per_s = rate("pcie_bytes_per_s", kMaxBytesPerS, "bytes/s");
  p.d2d_bytes_per_s = rate("d2d_bytes_per_s", kMaxBytesPerS, "bytes/s");
  p.server_apply_bytes_per_s = rate("server_apply_bytes_per_s", kMaxBytesPerS, "bytes/s");
  p.rebuild_flops_per_s = rate("rebuild_flops_per_s", kMaxFlops, "FLOP/s");
  p.quantize_bytes_per_s = rate("quantize_bytes_per_s", kMaxBytesPerS, "bytes/s");
  p.tcp_goodput = r.number(r.require(j, "", "tcp_goodput", "a fraction in (0, 1]"), "tcp_goodput",
                           0, 1, "a fraction in (0, 1]", /*lo_open=*/true);
  if (j.contains("tcp_host_bytes_per_s"))
    p.tcp_host_bytes_per_s =
        r.number(j["tcp_host_bytes_per_s"], "tcp_host_bytes_per_s", 0, kMaxBytesPerS,
                 "a rate in [0, " + format_number(kMaxBytesPerS) + "] bytes/s (0: no host ceiling)");
  if (j.contains("rdma_efficiency"))
    p.rdma_efficiency = r.number(j["rdma_efficiency"], "rdma_efficiency", 0, 1,
                                 "a fraction in [0, 1] (0: no RDMA figure)");
  p.pcie_latency_s = seconds("pcie_latency_s", 1);
  p.per_message_s = seconds("per_message_s", 1);
  p.per_iteration_s = seconds("per_iteration_s", kMaxSeconds);
  p.server_per_peer_s = seconds("server_per_peer_s", 1);
  p.step_sync_s = seconds("step_sync_s", 1);
  p.collective_launch_s = seconds("collective_launch_s", 1);
  // A factor of time, not a rate: 1 (no interference) up to a sanity bound.
  const auto slowdown = [&](const char* key) {
    if (!j.contains(key)) return 1.0;
    return r.number(j[key], key, 1, kMaxSlowdown, "a factor in [1, " + format_number(kMaxSlowdown) + "] (1: none)");
  };
  p.interference_kernel_slowdown = slowdown("interference_kernel_slowdown");
  p.interference_comm_slowdown = slowdown("interference_comm_slowdown");
  if (j.contains("optimizer_bytes_per_s"))
    p.optimizer_bytes_per_s =
        r.number(j["optimizer_bytes_per_s"], "optimizer_bytes_per_s", 0, kMaxBytesPerS,
                 "a rate in [0, " + format_number(kMaxBytesPerS) + "] bytes/s (0: the step is in the layer times)");
  if (j.contains("server_update_bytes_per_s"))
    p.server_update_bytes_per_s =
        r.number(j["server_update_bytes_per_s"], "server_update_bytes_per_s", 0, kMaxBytesPerS,
                 "a rate in [0, " + format_number(kMaxBytesPerS) + "] bytes/s (0: no separate update)");
  if (j.contains("client_pass_bytes_per_s"))
    p.client_pass_bytes_per_s =
        r.number(j["client_pass_bytes_per_s"], "client_pass_bytes_per_s", 0, kMaxBytesPerS,
                 "a rate in [0, " + format_number(kMaxBytesPerS) + "] bytes/s (0: no pass)");
  if (j.contains("runtime_copy_bytes_per_s"))
    p.runtime_copy_bytes_per_s =
        r.number(j["runtime_copy_bytes_per_s"], "runtime_copy_bytes_per_s", 0, kMaxBytesPerS,
                 "a rate in [0, " + format_number(kMaxBytesPerS) + "] bytes/s (0: no runtime copy)");

  p.kind_efficiency =
      read_efficiency(r, r.require(j, "", "kind_efficiency", "an object: layer kind -> fraction"));
  read_precision_peaks(r, j, p);
  if (j.contains("throughput")) p.throughput = read_throughput(r, j["throughput"]);
  if (j.contains("measured")) p.measured = read_measured(r, j["measured"]);
  for (std::size_t i = 0; i < p.throughput.size(); ++i)
    if (p.throughput[i].batch / p.throughput[i].images_per_s <= p.per_iteration_s)
      r.fail(json_check::index("throughput", i) + ".images_per_s",
             "iteration time is not above per_iteration_s",
             "batch / images_per_s > per_iteration_s");

  read_stack_section(r, j, p);
  if (j.contains("fit_covariance")) p.fit_covariance = read_fit_covariance(r, j["fit_covariance"], p);

  if (j.contains("sources")) {
    object(r, j["sources"], "sources");
    r.only_known(j["sources"], "sources", kTopFields);
    for (const auto& item : j["sources"].items())
      p.sources[item.key()] = text(r, item.value(), "sources." + item.key());
  }
  return p;
}

std::vector<std::string> shipped_profile_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(POSSIM_SOURCE_DIR) / "profiles", ec)) {
    const std::string stem = e.path().stem().string();
    if (e.path().extension() == ".json" && fs::path(stem).extension() != ".calibration") names.push_back(stem);
  }
  std::sort(names.begin(), names.end());
  return names;
}

Profile load_profile(const std::string& name_or_path, const std::string& base_dir) {
  const bool shipped =
      name_or_path.find('/') == std::string::npos &&
      !(name_or_path.size() >= 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
  const fs::path path = shipped
                            ? fs::path(POSSIM_SOURCE_DIR) / "profiles" / (name_or_path + ".json")
                            : (fs::path(base_dir) / name_or_path).lexically_normal();
  std::error_code ec;
  if (shipped && !fs::exists(path, ec)) {
    std::string names;
    for (const std::string& n : shipped_profile_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError(path.string(), "", "no shipped profile named '" + name_or_path + "'",
                     "one of: " + names + ", or a path to a profile JSON");
  }
  return parse_profile(read_input_file(path.string(), "profile file", "an existing profile JSON"),
                       path.string());
}

}  // namespace possim
