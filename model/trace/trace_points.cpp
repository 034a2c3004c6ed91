#include "model/trace/trace_points.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "model/input/error.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"
#include "model/run/engine_registry.hpp"

namespace possim {

namespace {

// The shortest decimal that reads back as x: fixed-point where that is short ("10",
// "0.5"), else with an exponent.
std::string shortest(double x) {
  char buf[64];
  const bool fixed = std::abs(x) >= 1e-4 && std::abs(x) < 1e15;
  for (int digits = fixed ? 0 : 1; digits <= 20; ++digits) {
    std::snprintf(buf, sizeof buf, fixed ? "%.*f" : "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

// Every value of one axis of the sweep, for the error message.
template <class Get>
std::string axis(const std::vector<SweepPoint>& sweep, Get get) {
  std::vector<std::string> values;
  for (const SweepPoint& p : sweep)
    if (std::find(values.begin(), values.end(), get(p)) == values.end()) values.push_back(get(p));
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

}  // namespace

std::vector<SweepPoint> parse_trace_points(const std::vector<std::string>& items,
                                           const std::vector<SweepPoint>& sweep, const std::string& option) {
  std::vector<char> chosen(sweep.size(), 0);
  for (const std::string& item : items) {
    const std::size_t a = item.find(':'), b = a == std::string::npos ? a : item.find(':', a + 1);
    const std::string quoted = "'" + item.substr(0, limits::kMaxQuotedChars) + "'";
    if (b == std::string::npos || item.find(':', b + 1) != std::string::npos)
      throw InputError(option, "", quoted + " is not STRATEGY:NODES:GBPS", "e.g. poseidon:8:10");
    const std::string strategy = item.substr(0, a), nodes_text = item.substr(a + 1, b - a - 1),
                      gbps_text = item.substr(b + 1);
    const std::optional<long long> nodes_v = parse_decimal_integer(nodes_text);
    const std::optional<double> gbps_v = parse_decimal(gbps_text);  // "10", "2.5": not "0xa"
    const bool nodes_ok = nodes_v.has_value(), gbps_ok = gbps_v.has_value();
    const long long nodes = nodes_v.value_or(-1);
    const double gbps = gbps_v.value_or(-1);
    bool found = false;
    for (std::size_t i = 0; i < sweep.size(); ++i)
      if (nodes_ok && gbps_ok && sweep[i].strategy == strategy && sweep[i].nodes == nodes &&
          sweep[i].nic_gbps == gbps) {
        chosen[i] = 1;
        found = true;
      }
    if (!found)
      throw InputError(option, "", quoted + " is not a point of the sweep",
                       "STRATEGY:NODES:GBPS with a strategy of [" +
                           axis(sweep, [](const SweepPoint& p) { return p.strategy; }) + "], nodes of [" +
                           axis(sweep, [](const SweepPoint& p) { return std::to_string(p.nodes); }) +
                           "], Gbit/s of [" + axis(sweep, [](const SweepPoint& p) { return shortest(p.nic_gbps); }) +
                           "]");
  }
  std::vector<SweepPoint> out;
  for (std::size_t i = 0; i < sweep.size(); ++i)
    if (chosen[i]) out.push_back(sweep[i]);
  return out;
}

std::string gbps_for_file_name(double gbps) {
  std::string s = shortest(gbps);
  std::string out;
  for (char c : s)
    if (c == '.') out += 'p';
    else if (c == '-') out += 'm';
    else if (c != '+') out += c;
  return out;
}

std::string trace_file_name(const Result& r) {
  return "trace_" + r.strategy + "_" + std::to_string(r.cluster.nodes) + "n_" +
         gbps_for_file_name(r.cluster.nic_gbps) + "g_" + std::to_string(r.cluster.gpus_per_node) + "gpu.json";
}

TraceMeta trace_meta(const Scenario& s, const Result& r, const WorkerSelection& traced) {
  TraceMeta m;
  m.title = s.name + ": " + r.strategy + ", " + counted(r.cluster.nodes, "node") + " x " +
            std::to_string(r.cluster.gpus_per_node) + " GPU, " + shortest(r.cluster.nic_gbps) + " Gbit/s (" +
            r.engine + ")";
  const bool one_worker = capabilities_of(r.engine).closed_form;
  m.workers = one_worker ? "one representative worker of " + std::to_string(r.cluster.nodes) + " (" + r.engine + " engine)"
                         : traced.describe(r.cluster.nodes);
  if (!one_worker) {
    m.nodes = r.cluster.nodes;
    for (int shard = 0; shard < r.cluster.server_shards; ++shard) m.shard_nodes.push_back(r.cluster.shard_node(shard));
  }
  m.args = {{"scenario", s.name},         {"model", r.model},
            {"strategy", r.strategy},     {"engine", r.engine},
            {"nodes", r.cluster.nodes},   {"gpus_per_node", r.cluster.gpus_per_node},
            {"nic_gbps", r.cluster.nic_gbps}, {"iterations", r.iterations}};
  if (!one_worker) {
    m.args["traced_workers"] = traced.traced(r.cluster.nodes);
    m.args["left_out_workers"] = traced.left_out(r.cluster.nodes);
  }
  return m;
}

}  // namespace possim
