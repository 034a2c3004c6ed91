#include "model/planning/prices.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"

namespace possim {

namespace {

using nlohmann::json;
constexpr double kMaxPrice = 1e12;  // any one item: beyond it a typo, not a price

const json_check::Names& fields() {
  static const json_check::Names names = {"currency", "date", "description", "gpu_node", "nic", "switch_port", "sources"};
  return names;
}

double price(const json& v, const std::string& where, const std::string& field) {
  if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > kMaxPrice)
    throw InputError(where, field, json_check::describe(v) + " is not a price", "a number in [0, 1e12]");
  return v.get<double>();
}

std::map<double, double> by_speed(const json& j, const std::string& where, const std::string& field) {
  if (!j.is_object() || j.empty())
    throw InputError(where, field, json_check::describe(j) + " is not a price list", "{\"10\": 150, \"25\": 250, ...} by Gbit/s");
  std::map<double, double> out;
  for (const auto& [key, v] : j.items()) {
    const std::string f = json_check::join(field, key);
    const std::optional<double> parsed = parse_decimal(key);  // "10", "2.5": not "0x10", "inf"
    const double gbps = parsed ? *parsed : -1;
    if (!parsed || !(gbps >= 0.1 && gbps <= 1000))
      throw InputError(where, f, "'" + json_check::quoted(key) + "' is not a NIC speed", "Gbit/s in [0.1, 1000]");
    out[gbps] = price(v, where, f);
  }
  return out;
}

std::string text(const json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return "";
  return json_check::Reader(where).label(j[key], key, limits::kMaxNoteChars, "a string");
}

}  // namespace

Prices parse_prices(const std::string& json_text, const std::string& where) {
  const json j = json_check::Reader(where).parse(json_text, "a prices JSON (see prices/example.json)");
  if (!j.is_object()) throw InputError(where, "", json_check::describe(j) + " is not a prices object", "{\"gpu_node\": ..., \"nic\": {...}, \"switch_port\": {...}}");
  for (const auto& [key, v] : j.items())
    if (std::find(fields().begin(), fields().end(), key) == fields().end())
      throw InputError(where, key, "unknown field" + json_check::did_you_mean(key, fields()),
                       "one of " + json_check::list(fields()));
  for (const char* required : {"gpu_node", "nic", "switch_port"})
    if (!j.contains(required)) throw InputError(where, required, "missing", "a price per node");
  Prices p;
  p.path = where;
  p.currency = text(j, "currency", where);
  p.date = text(j, "date", where);
  p.description = text(j, "description", where);
  p.gpu_node = price(j["gpu_node"], where, "gpu_node");
  p.nic = by_speed(j["nic"], where, "nic");
  p.switch_port = by_speed(j["switch_port"], where, "switch_port");
  for (const auto& [gbps, _] : p.nic)
    if (!p.switch_port.count(gbps))
      throw InputError(where, "switch_port", "no price for " + json_check::describe(json(gbps)) + " Gbit/s, which nic lists",
                       "a switch port price for every NIC speed");
  for (const auto& [gbps, _] : p.switch_port)
    if (!p.nic.count(gbps))
      throw InputError(where, "nic", "no price for " + json_check::describe(json(gbps)) + " Gbit/s, which switch_port lists",
                       "a NIC price for every switch port speed");
  if (j.contains("sources")) {
    if (!j["sources"].is_object()) throw InputError(where, "sources", "not an object", "{\"nic\": \"where the price is from\"}");
    for (const auto& [key, v] : j["sources"].items()) {
      if (key.size() > limits::kMaxLabelChars || !is_label_text(key))
        throw InputError(where, "sources", "a key holds control characters or is too long", "a short printable name");
      p.sources[key] = json_check::Reader(where).label(v, json_check::join("sources", key), limits::kMaxNoteChars, "a string");
    }
  }
  return p;
}

Prices load_prices(const std::string& path) {
  return parse_prices(read_input_file(path, "prices file", "a prices JSON (see prices/example.json)"), path);
}

}  // namespace possim
