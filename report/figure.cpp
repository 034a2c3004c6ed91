#include "model/strategies/strategy.hpp"
#include "report/figure.hpp"

#include <cstdio>
#include <map>

namespace possim::report {

namespace {

bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

}  // namespace

std::string gp_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') out += "''";
    else if (is_control(c)) out += ' ';
    else out += c;
  }
  return out + "'";
}

std::string gp_text(const std::string& s) {
  std::string out;
  for (const char c : s) out += is_control(c) ? ' ' : c == '"' ? '\'' : c;
  while (!out.empty() && out.back() == '\\') out.pop_back();
  return out;
}

std::string series_label(const ReportInputs& in, const ReportPoint& p) {
  std::string label = p.result.strategy;
  if (in.engines.size() > 1) label += " (" + p.result.engine + ")";
  if (in.files.size() > in.engines.size()) label += " [" + in.files.at(p.file).name + "]";
  return label;
}

std::string strategy_colour(const std::string& strategy) {
  static const std::map<std::string, std::string> colours = {
      {"single", "#7f7f7f"},   {"ps", "#d62728"},   {"wfbp", "#ff7f0e"},  {"poseidon", "#1f77b4"},
      {"tf_stock", "#9467bd"}, {"adam", "#8c564b"}, {"onebit", "#e377c2"}, {"allreduce", "#2ca02c"}};
  const auto it = colours.find(strategy);
  return it == colours.end() ? "#17becf" : it->second;
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::string figure_id(const char* kind, std::size_t n) {
  return "fig" + std::string(n < 9 ? "0" : "") + std::to_string(n + 1) + "-" + kind;
}

// Per model, the points at its largest node count, the slowest NIC of those, the first file.
std::map<std::string, std::vector<const ReportPoint*>> largest_cluster(const ReportInputs& in) {
  std::map<std::string, std::vector<const ReportPoint*>> out;
  const auto bigger = [](const Result& a, const Result& b) {
    if (a.cluster.nodes != b.cluster.nodes) return a.cluster.nodes > b.cluster.nodes;
    if (a.cluster.gpus_per_node != b.cluster.gpus_per_node) return a.cluster.gpus_per_node > b.cluster.gpus_per_node;
    return a.cluster.nic_gbps < b.cluster.nic_gbps;
  };
  std::map<std::string, const ReportPoint*> best;
  for (const ReportPoint& p : in.points) {
    if (is_reference(p.result.strategy)) continue;
    auto& b = best[p.result.model];
    if (!b || bigger(p.result, b->result)) b = &p;
  }
  for (const ReportPoint& p : in.points) {
    const auto it = best.find(p.result.model);
    if (it == best.end() || is_reference(p.result.strategy)) continue;
    const Result &a = p.result, &b = it->second->result;
    if (a.cluster.nodes == b.cluster.nodes && a.cluster.gpus_per_node == b.cluster.gpus_per_node &&
        a.cluster.nic_gbps == b.cluster.nic_gbps && a.batch_per_gpu == b.batch_per_gpu && p.extra == it->second->extra)
      out[p.result.model].push_back(&p);
  }
  return out;
}

std::string cluster_text(const Result& r) {
  return r.model + ", " + std::to_string(r.cluster.nodes) + " nodes x " + std::to_string(r.cluster.gpus_per_node) +
         " GPU, " + num(r.cluster.nic_gbps) + " Gbit/s";
}

}  // namespace possim::report
