// Layer JSON ("possim-network-1"): writing a Network, and reading one back with every
// field checked, so a typo in a user's model file fails loudly instead of silently.
#include "model/input/layer_json.hpp"

#include <sys/stat.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/input/sha256.hpp"
#include "model/input/text.hpp"
#include "model/workload/zoo.hpp"

namespace possim {

namespace {
using nlohmann::json;
constexpr const char* kFormat = "possim-network-1";

json shape_to_json(const Shape& s) { return json::array({s.c, s.h, s.w}); }

bool has_geometry(LayerKind k) { return k == LayerKind::conv || k == LayerKind::pool; }

using json_check::quoted;

// A value as an error shows it: its JSON text, cut short.
std::string shown(const json& v) { return quoted(v.dump()); }

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Reads the fields of one JSON object, naming the file and field path in every error.
class Fields {
 public:
  Fields(const json& obj, std::string where, std::string path)
      : obj_(obj), where_(std::move(where)), path_(std::move(path)) {
    if (!obj_.is_object()) fail("", "is not a JSON object", "an object");
  }

  [[noreturn]] void fail(const std::string& key, const std::string& problem,
                         const std::string& expected) const {
    throw InputError(where_, field(key), problem, expected);
  }
  std::string field(const std::string& key) const {
    if (key.empty()) return path_;
    return path_.empty() ? key : path_ + "." + key;
  }
  bool has(const std::string& key) const { return obj_.contains(key); }

  // Every key must be one the format defines for this object.
  void only(const std::vector<std::string>& allowed, const std::string& what) const {
    for (auto it = obj_.begin(); it != obj_.end(); ++it) {
      bool ok = false;
      for (const auto& a : allowed) ok = ok || it.key() == a;
      if (!ok) fail(quoted(it.key()), "unknown field" + what, "one of " + join(allowed));
    }
  }

  const json& need(const std::string& key, const std::string& expected) const {
    if (!obj_.contains(key)) fail(key, "missing", expected);
    return obj_.at(key);
  }

  std::string str(const std::string& key, bool non_empty) const {
    const char* expected = non_empty ? "a non-empty string" : "a string";
    const json& v = need(key, expected);
    if (!v.is_string() || (non_empty && v.get<std::string>().empty()))
      fail(key, "is " + shown(v), expected);
    // Names reach results, terminals, CSV and report scripts: printable and short.
    const std::string& s = v.get_ref<const std::string&>();
    const std::size_t max = key == "description" ? limits::kMaxNoteChars : limits::kMaxLabelChars;
    if (s.size() > max)
      fail(key, "is " + std::to_string(s.size()) + " bytes long", "at most " + std::to_string(max) + " bytes");
    if (!is_label_text(s)) fail(key, "'" + quoted(s) + "' holds control characters", "printable text");
    return s;
  }

  // A parameter count: at most limits::kMaxParamsPerLayer, so that sums and the x4
  // bytes of fp32 never overflow.
  std::int64_t count(const std::string& key) const {
    return integer(key, 0, limits::kMaxParamsPerLayer);
  }

  std::int64_t integer(const std::string& key, std::int64_t min, std::int64_t max) const {
    return to_int(need(key, range(min)), key, min, max);
  }

  // Per-image FLOPs (or MACs) of one layer: finite, at most limits::kMaxFlopsPerImage.
  double number(const std::string& key) const {
    const json& v = need(key, "a non-negative number");
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
      fail(key, "is " + shown(v), "a non-negative number");
    if (v.get<double>() > limits::kMaxFlopsPerImage)
      fail(key, "is " + shown(v) + ", over the limit of 1e18 per image", "a number <= 1e18");
    return v.get<double>();
  }

  // An array of `n` integers in [min, INT_MAX].
  std::vector<std::int64_t> ints(const std::string& key, std::size_t n, std::int64_t min,
                                 const std::string& expected) const {
    const json& v = need(key, expected);
    if (!v.is_array() || v.size() != n) fail(key, "is " + shown(v), expected);
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < n; ++i)
      out.push_back(to_int(v[i], key + "[" + std::to_string(i) + "]", min, INT_MAX));
    return out;
  }

  // Its element count (c x h x w) is at most limits::kMaxShapeElements.
  Shape shape(const std::string& key) const {
    const auto v = ints(key, 3, 1, "[channels, height, width] of positive integers");
    std::int64_t n = 0;
    if (__builtin_mul_overflow(v[0], v[1], &n) || __builtin_mul_overflow(n, v[2], &n) ||
        n > limits::kMaxShapeElements)
      fail(key, "has more than 2^40 elements", "channels x height x width <= 2^40");
    return {v[0], v[1], v[2]};
  }

 private:
  static std::string range(std::int64_t min) {
    return min == 0 ? "a non-negative integer"
                    : min == 1 ? "a positive integer" : "an integer >= " + std::to_string(min);
  }
  std::int64_t to_int(const json& v, const std::string& key, std::int64_t min,
                      std::int64_t max) const {
    const bool fits = v.is_number_integer() &&
                      (v.is_number_unsigned() ? v.get<std::uint64_t>() <= std::uint64_t(max)
                                              : v.get<std::int64_t>() <= max) &&
                      v.get<std::int64_t>() >= min;
    if (!fits)
      fail(key, "is " + shown(v),
           max == limits::kMaxParamsPerLayer ? range(min) + " <= 1e12" : range(min));
    return v.get<std::int64_t>();
  }

  const json& obj_;
  std::string where_, path_;
};

Layer layer_from_json(const json& j, const std::string& where, const std::string& path) {
  Fields f(j, where, path);
  Layer l;
  l.name = f.str("name", true);
  const std::string kind = f.str("kind", true);
  try {
    l.kind = layer_kind_from_string(kind);
  } catch (const std::invalid_argument&) {
    f.fail("kind", "unknown layer kind '" + quoted(kind) + "'",
           "conv, fc, bn, pool, relu, lrn, concat, add, dropout or softmax");
  }
  std::vector<std::string> allowed = {"name",        "kind",     "in",        "out",
                                      "weight_params", "bias_params", "fwd_macs", "fwd_flops",
                                      "bwd_flops"};
  if (l.kind == LayerKind::fc) allowed.insert(allowed.end(), {"fc_m", "fc_n"});
  if (has_geometry(l.kind)) allowed.insert(allowed.end(), {"kernel", "stride", "pad", "groups"});
  if (l.kind == LayerKind::pool) allowed.push_back("pool");
  f.only(allowed, " for a " + kind + " layer");

  l.in = f.shape("in");
  l.out = f.shape("out");
  l.weight_params = f.count("weight_params");
  l.bias_params = f.count("bias_params");
  if (l.weight_params + l.bias_params > limits::kMaxParamsPerLayer)  // each <= 1e12: no overflow
    f.fail("bias_params", "makes " + std::to_string(l.weight_params + l.bias_params) + " parameters",
           "weight_params + bias_params <= 1e12");
  l.fwd_macs = f.number("fwd_macs");
  l.fwd_flops = f.number("fwd_flops");
  l.bwd_flops = f.number("bwd_flops");
  if (l.kind == LayerKind::fc) {
    l.fc_m = f.integer("fc_m", 1, INT64_MAX);
    l.fc_n = f.integer("fc_n", 1, INT64_MAX);
    // A product that overflows cannot equal a valid weight count either.
    if (l.fc_m > INT64_MAX / l.fc_n || l.fc_m * l.fc_n != l.weight_params)
      f.fail("weight_params", "is " + std::to_string(l.weight_params),
             "fc_m * fc_n = " + std::to_string(l.fc_m) + " * " + std::to_string(l.fc_n));
  }
  if (has_geometry(l.kind)) {
    const auto k = f.ints("kernel", 2, 1, "[height, width] of positive integers");
    l.kernel_h = int(k[0]);
    l.kernel_w = int(k[1]);
    if (f.has("stride")) l.stride = int(f.integer("stride", 1, INT_MAX));
    if (f.has("pad")) {
      const auto p = f.ints("pad", 2, 0, "[height, width] of non-negative integers");
      l.pad_h = int(p[0]);
      l.pad_w = int(p[1]);
    }
    if (f.has("groups")) l.groups = int(f.integer("groups", 1, INT_MAX));
  }
  if (l.kind == LayerKind::pool && f.has("pool")) {
    const std::string p = f.str("pool", true);
    if (p != "max" && p != "avg") f.fail("pool", "unknown pooling '" + quoted(p) + "'", "max or avg");
    l.average_pool = p == "avg";
  }
  return l;
}
}  // namespace

json network_to_json(const Network& net) {
  json layers = json::array();
  for (const Layer& l : net.layers) {
    json j = {{"name", l.name},
              {"kind", to_string(l.kind)},
              {"in", shape_to_json(l.in)},
              {"out", shape_to_json(l.out)},
              {"weight_params", l.weight_params},
              {"bias_params", l.bias_params},
              {"fwd_macs", l.fwd_macs},
              {"fwd_flops", l.fwd_flops},
              {"bwd_flops", l.bwd_flops}};
    if (l.kind == LayerKind::fc) {
      j["fc_m"] = l.fc_m;
      j["fc_n"] = l.fc_n;
    }
    if (has_geometry(l.kind)) {
      j["kernel"] = {l.kernel_h, l.kernel_w};
      j["stride"] = l.stride;
      j["pad"] = {l.pad_h, l.pad_w};
      j["groups"] = l.groups;
    }
    if (l.kind == LayerKind::pool) j["pool"] = l.average_pool ? "avg" : "max";
    layers.push_back(std::move(j));
  }
  return {{"format", kFormat},
          {"name", net.name},
          {"description", net.description},
          {"input", shape_to_json(net.input)},
          {"layers", std::move(layers)}};
}

Network network_from_json(const json& j, const std::string& where) {
  Fields f(j, where, "");
  f.only({"format", "name", "description", "input", "layers"}, "");
  if (f.str("format", true) != kFormat)
    f.fail("format", "is " + shown(j.at("format")), std::string("\"") + kFormat + "\"");
  Network net;
  net.name = f.str("name", true);
  if (f.has("description")) net.description = f.str("description", false);
  net.input = f.shape("input");

  const json& layers = f.need("layers", "a non-empty array of layers");
  if (!layers.is_array() || layers.empty())
    f.fail("layers", layers.is_array() ? "is empty" : "is " + std::string(layers.type_name()),
           "a non-empty array of layers");
  if (layers.size() > std::size_t(limits::kMaxLayers))
    f.fail("layers", "has " + std::to_string(layers.size()) + " layers",
           "at most " + std::to_string(limits::kMaxLayers) + " layers");
  std::set<std::string> names;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string path = "layers[" + std::to_string(i) + "]";
    Layer l = layer_from_json(layers[i], where, path);
    if (!names.insert(l.name).second)
      throw InputError(where, path + ".name", "duplicate layer name '" + json_check::quoted(l.name) + "'",
                       "names unique within the network");
    net.layers.push_back(std::move(l));
  }
  return net;
}

Network load_network(const std::string& ref, const std::string& base_dir) {
  namespace fs = std::filesystem;
  if (in_zoo(ref)) return make_zoo_network(ref);
  fs::path path(ref);
  if (path.is_relative() && !base_dir.empty()) path = fs::path(base_dir) / path;
  const bool looks_like_path = ref.find('/') != std::string::npos ||
                               ref.find('\\') != std::string::npos || fs::path(ref).has_extension();
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (!looks_like_path && !exists)
    throw InputError("unknown model '" + json_check::quoted(ref) + "' (expected a zoo name: " + join(zoo_names()) +
                     "; or a path to a layer JSON file)");
  const std::string where = path.string();
  if (!exists) throw InputError(where, "", "file not found", "a layer JSON file");
  // Parsed once per process while the file stays as it was: a sweep checks, then runs,
  // thousands of points of one model (a 3 MB layer JSON takes a quarter of a second).
  struct stat st {};
  using Key = std::tuple<std::string, dev_t, ino_t, off_t, long long, long long>;
  static std::mutex cache_mutex;
  static std::map<Key, Network> cache;
  const bool keyed = ::stat(where.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const Key key{where, st.st_dev, st.st_ino, st.st_size, (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec};
  if (keyed) {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const std::string text = read_input_file(where, "layer JSON", "a layer JSON file");
  json_check::check_depth(text, where);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(where, "",
                     "malformed JSON at byte " + std::to_string(e.byte) + ": " +
                         json_check::parse_error_text(e));
  } catch (const json::exception& e) {  // out_of_range.406: a number like 1e999
    throw InputError(where, "", "malformed JSON: " + json_check::exception_text(e));
  }
  Network net = network_from_json(j, where);
  net.file_sha256 = sha256_hex(text);
  if (keyed) {
    const std::lock_guard<std::mutex> lock(cache_mutex);
    if (cache.size() >= 16) cache.clear();  // a handful of models per command
    cache.emplace(key, net);
  }
  return net;
}

}  // namespace possim
