// Profile JSON ("possim-profile-1"): parsing, with every field range-checked, and the three
// layer-timing rules of profile.hpp.
#include "model/profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "model/error.hpp"

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
constexpr double kMaxFlops = 1e18, kMaxBytesPerS = 1e13, kMaxSeconds = 60;

// clang-format off
const std::vector<std::string> kTopFields = {
    "format", "name", "device", "peak_flops_per_s", "kind_efficiency", "throughput", "measured",
    "pcie_bytes_per_s", "pcie_latency_s", "d2d_bytes_per_s", "tcp_goodput", "per_message_s",
    "server_apply_bytes_per_s", "rebuild_flops_per_s", "quantize_bytes_per_s", "per_iteration_s",
    "sources"};
// clang-format on

// Edit distance, for "did you mean" hints on unknown fields.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: insertions, deletions, substitutions and adjacent swaps
  // ("vgg91" is one typo away from "vgg19", not two).
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// Reads one JSON document, naming `where` and the field path in every error.
class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& problem,
                         const std::string& expected = "") const {
    throw InputError(where_, field, problem, expected);
  }

  void only_known(const json& obj, const std::string& path,
                  const std::vector<std::string>& known) const {
    for (const auto& item : obj.items()) {
      if (std::find(known.begin(), known.end(), item.key()) != known.end()) continue;
      std::string list, hint;
      std::size_t best = 3;  // suggest only within edit distance 2
      for (const auto& k : known) {
        list += (list.empty() ? "" : ", ") + k;
        const std::size_t d = edit_distance(item.key(), k);
        if (d < best) best = d, hint = k;
      }
      fail(join(path, item.key()),
           "unknown field" + (hint.empty() ? "" : "; did you mean '" + hint + "'?"),
           "one of " + list);
    }
  }

  const json& require(const json& obj, const std::string& path, const char* key,
                      const std::string& expected) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(join(path, key), "missing", expected);
    return *it;
  }

  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, describe(v) + " is not an object", "a JSON object");
    return v;
  }
  const json& array(const json& v, const std::string& path, const std::string& expected) const {
    if (!v.is_array()) fail(path, describe(v) + " is not a list", expected);
    return v;
  }

  std::string text(const json& v, const std::string& path, bool non_empty = true) const {
    if (!v.is_string()) fail(path, describe(v) + " is not a string", "a string");
    const std::string s = v.get<std::string>();
    if (non_empty && s.empty()) fail(path, "is empty", "a non-empty string");
    return s;
  }

  // A number in [lo, hi] (or (lo, hi] when lo_open).
  double number(const json& v, const std::string& path, double lo, double hi, bool lo_open,
                const std::string& expected) const {
    if (!v.is_number()) fail(path, describe(v) + " is not a number", expected);
    const double x = v.get<double>();
    if ((lo_open ? x <= lo : x < lo) || x > hi) fail(path, v.dump() + " is out of range", expected);
    return x;
  }

  int integer(const json& v, const std::string& path, long long lo, long long hi,
              const std::string& expected) const {
    if (!v.is_number_integer()) fail(path, describe(v) + " is not an integer", expected);
    // Non-negative JSON integers parse as unsigned; compare in the matching type.
    const bool out = v.is_number_unsigned()
                         ? v.get<unsigned long long>() > (unsigned long long)hi ||
                               (lo > 0 && v.get<unsigned long long>() < (unsigned long long)lo)
                         : v.get<long long>() < lo || v.get<long long>() > hi;
    if (out) fail(path, v.dump() + " is out of range", expected);
    return int(v.get<long long>());
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string index(const std::string& path, std::size_t i) {
    return path + "[" + std::to_string(i) + "]";
  }
  static std::string describe(const json& v) {
    std::string s = v.dump();
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s + " (" + v.type_name() + ")";
  }

 private:
  std::string where_;
};

std::string format_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

std::vector<ThroughputPoint> read_throughput(const Reader& r, const json& v) {
  std::vector<ThroughputPoint> out;
  std::set<std::pair<std::string, int>> seen;
  r.array(v, "throughput", "a list of {model, batch, images_per_s, source}");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = Reader::index("throughput", i);
    const json& e = r.object(v[i], at);
    r.only_known(e, at, {"model", "batch", "images_per_s", "source"});
    ThroughputPoint p;
    p.model = r.text(r.require(e, at, "model", "a model name"), at + ".model");
    p.batch = r.integer(r.require(e, at, "batch", "a batch size >= 1"), at + ".batch", 1, 1 << 20,
                        "a batch size in [1, 1048576]");
    p.images_per_s = r.number(r.require(e, at, "images_per_s", "images per second > 0"),
                              at + ".images_per_s", 0, 1e9, true, "images per second in (0, 1e9]");
    p.source = r.text(r.require(e, at, "source", "where the number came from"), at + ".source");
    if (!seen.insert({p.model, p.batch}).second)
      r.fail(at, "second point for " + p.model + " at batch " + std::to_string(p.batch),
             "one point per model and batch");
    out.push_back(p);
  }
  return out;
}

std::vector<MeasuredModel> read_measured(const Reader& r, const json& v) {
  std::vector<MeasuredModel> out;
  std::set<std::pair<std::string, int>> seen;
  r.array(v, "measured", "a list of {model, batch, source, layers}");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string at = Reader::index("measured", i);
    const json& e = r.object(v[i], at);
    r.only_known(e, at, {"model", "batch", "source", "layers"});
    MeasuredModel m;
    m.model = r.text(r.require(e, at, "model", "a model name"), at + ".model");
    m.batch = r.integer(r.require(e, at, "batch", "a batch size >= 1"), at + ".batch", 1, 1 << 20,
                        "a batch size in [1, 1048576]");
    m.source = r.text(r.require(e, at, "source", "where the timings came from"), at + ".source");
    const std::string lat = at + ".layers";
    const json& layers =
        r.array(r.require(e, at, "layers", "a list of {layer, forward_s, backward_s}"), lat,
                "a list of {layer, forward_s, backward_s}");
    if (layers.empty()) r.fail(lat, "is empty", "one entry per layer of the model");
    std::set<std::string> names;
    for (std::size_t k = 0; k < layers.size(); ++k) {
      const std::string lk = Reader::index(lat, k);
      const json& le = r.object(layers[k], lk);
      r.only_known(le, lk, {"layer", "forward_s", "backward_s"});
      LayerTiming t;
      t.layer = r.text(r.require(le, lk, "layer", "a layer name"), lk + ".layer");
      const std::string secs = "seconds in [0, " + format_number(kMaxSeconds) + "]";
      t.forward_s = r.number(r.require(le, lk, "forward_s", secs), lk + ".forward_s", 0,
                             kMaxSeconds, false, secs);
      t.backward_s = r.number(r.require(le, lk, "backward_s", secs), lk + ".backward_s", 0,
                              kMaxSeconds, false, secs);
      if (!names.insert(t.layer).second)
        r.fail(lk + ".layer", "layer '" + t.layer + "' appears twice", "one entry per layer");
      m.layers.push_back(t);
    }
    if (!seen.insert({m.model, m.batch}).second)
      r.fail(at, "second timing set for " + m.model + " at batch " + std::to_string(m.batch),
             "one per model and batch");
    out.push_back(std::move(m));
  }
  return out;
}

std::map<LayerKind, double> read_efficiency(const Reader& r, const json& v) {
  std::map<LayerKind, double> out;
  r.object(v, "kind_efficiency");
  for (const auto& item : v.items()) {
    const std::string at = "kind_efficiency." + item.key();
    LayerKind k;
    try {
      k = layer_kind_from_string(item.key());
    } catch (const std::invalid_argument&) {
      r.fail(at, "unknown layer kind",
             "conv, fc, bn, pool, relu, lrn, concat, add, dropout or softmax");
    }
    out[k] = r.number(item.value(), at, 0, 1, true, "a fraction in (0, 1]");
  }
  for (LayerKind k : {LayerKind::conv, LayerKind::fc})
    if (!out.count(k))
      r.fail(std::string("kind_efficiency.") + to_string(k), "missing",
             "a fraction in (0, 1]; only memory-bound kinds may be left out (they default to " +
                 format_number(kMemoryBoundEfficiency) + ")");
  return out;
}

const MeasuredModel* find_measured(const Profile& p, const Network& net, int batch) {
  for (const auto& m : p.measured)
    if (m.model == net.name && m.batch == batch) return &m;
  return nullptr;
}

// Nearest batch; on a tie the larger batch (the GPU is nearer saturation there).
const ThroughputPoint* find_point(const Profile& p, const Network& net, int batch) {
  const ThroughputPoint* best = nullptr;
  for (const auto& t : p.throughput) {
    if (t.model != net.name) continue;
    if (!best) {
      best = &t;
      continue;
    }
    const int d = std::abs(t.batch - batch), bd = std::abs(best->batch - batch);
    if (d < bd || (d == bd && t.batch > best->batch)) best = &t;
  }
  return best;
}

double efficiency(const Profile& p, LayerKind k) {
  auto it = p.kind_efficiency.find(k);
  return it == p.kind_efficiency.end() ? kMemoryBoundEfficiency : it->second;
}

std::vector<LayerTime> flop_times(const Profile& p, const Network& net, int batch) {
  std::vector<LayerTime> out;
  for (const Layer& l : net.layers) {
    const double rate = p.peak_flops_per_s * efficiency(p, l.kind);
    out.push_back({batch * l.fwd_flops / rate, batch * l.bwd_flops / rate});
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

}  // namespace

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
  if (const MeasuredModel* m = find_measured(*this, net, batch))
    return "measured per-layer timings for " + net.name + " at batch " + std::to_string(batch) +
           " (" + m->source + ")";
  const std::string flop =
      "FLOP model (peak " + format_number(peak_flops_per_s) + " FLOP/s x kind efficiency)";
  if (const ThroughputPoint* pt = find_point(*this, net, batch))
    return flop + " scaled x" + format_number(scale_factor(*this, net, *pt)) + " to " +
           format_number(pt->images_per_s) + " images/s at batch " + std::to_string(pt->batch) +
           " (" + pt->source + ")";
  return flop + " alone: no measurement of " + net.name + " in profile " + name;
}

Profile parse_profile(const std::string& json_text, const std::string& where) {
  const Reader r(where);
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto cut = what.find("] ");
    if (cut != std::string::npos) what = what.substr(cut + 2);
    r.fail("", "malformed JSON: " + what, "a possim-profile-1 JSON object");
  }
  if (!j.is_object()) r.fail("", "top level is " + std::string(j.type_name()), "a JSON object");
  r.only_known(j, "", kTopFields);

  Profile p;
  p.path = where;
  const std::string format =
      r.text(r.require(j, "", "format", std::string("\"") + kFormat + "\""), "format");
  if (format != kFormat)
    r.fail("format", "\"" + format + "\" is not supported", std::string("\"") + kFormat + "\"");
  p.name = r.text(r.require(j, "", "name", "a profile name"), "name");
  if (j.contains("device")) p.device = r.text(j["device"], "device", false);

  // Required rates: a zero here would divide by zero downstream.
  const auto rate = [&](const char* key, double hi, const std::string& unit) {
    const std::string e = "a rate in (0, " + format_number(hi) + "] " + unit;
    return r.number(r.require(j, "", key, e), key, 0, hi, true, e);
  };
  // Optional fixed costs default to 0.
  const auto seconds = [&](const char* key, double hi) {
    if (!j.contains(key)) return 0.0;
    return r.number(j[key], key, 0, hi, false, "seconds in [0, " + format_number(hi) + "]");
  };
  p.peak_flops_per_s = rate("peak_flops_per_s", kMaxFlops, "FLOP/s");
  p.pcie_bytes_per_s = rate("pcie_bytes_per_s", kMaxBytesPerS, "bytes/s");
  p.d2d_bytes_per_s = rate("d2d_bytes_per_s", kMaxBytesPerS, "bytes/s");
  p.server_apply_bytes_per_s = rate("server_apply_bytes_per_s", kMaxBytesPerS, "bytes/s");
  p.rebuild_flops_per_s = rate("rebuild_flops_per_s", kMaxFlops, "FLOP/s");
  p.quantize_bytes_per_s = rate("quantize_bytes_per_s", kMaxBytesPerS, "bytes/s");
  p.tcp_goodput = r.number(r.require(j, "", "tcp_goodput", "a fraction in (0, 1]"), "tcp_goodput",
                           0, 1, true, "a fraction in (0, 1]");
  p.pcie_latency_s = seconds("pcie_latency_s", 1);
  p.per_message_s = seconds("per_message_s", 1);
  p.per_iteration_s = seconds("per_iteration_s", kMaxSeconds);

  p.kind_efficiency =
      read_efficiency(r, r.require(j, "", "kind_efficiency", "an object: layer kind -> fraction"));
  if (j.contains("throughput")) p.throughput = read_throughput(r, j["throughput"]);
  if (j.contains("measured")) p.measured = read_measured(r, j["measured"]);
  for (std::size_t i = 0; i < p.throughput.size(); ++i)
    if (p.throughput[i].batch / p.throughput[i].images_per_s <= p.per_iteration_s)
      r.fail(Reader::index("throughput", i) + ".images_per_s",
             "iteration time is not above per_iteration_s",
             "batch / images_per_s > per_iteration_s");

  if (j.contains("sources")) {
    r.object(j["sources"], "sources");
    r.only_known(j["sources"], "sources", kTopFields);
    for (const auto& item : j["sources"].items())
      p.sources[item.key()] = r.text(item.value(), "sources." + item.key());
  }
  return p;
}

Profile load_profile(const std::string& name_or_path, const std::string& base_dir) {
  const bool shipped =
      name_or_path.find('/') == std::string::npos &&
      !(name_or_path.size() >= 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
  const fs::path path = shipped
                            ? fs::path(POSSIM_SOURCE_DIR) / "profiles" / (name_or_path + ".json")
                            : (fs::path(base_dir) / name_or_path).lexically_normal();
  std::ifstream in(path);
  if (!in) {
    if (!shipped)
      throw InputError(path.string(), "", "cannot read the profile file",
                       "an existing profile JSON");
    std::string names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(POSSIM_SOURCE_DIR) / "profiles", ec))
      if (e.path().extension() == ".json")
        names += (names.empty() ? "" : ", ") + e.path().stem().string();
    throw InputError(path.string(), "", "no shipped profile named '" + name_or_path + "'",
                     "one of: " + names + ", or a path to a profile JSON");
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_profile(text.str(), path.string());
}

}  // namespace possim
