#include "model/strategies/strategy.hpp"
#include "report/figure.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "model/input/strategy_names.hpp"
#include "model/input/text.hpp"

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

const char* const kKeySetting = "set key outside top center horizontal box opaque\n";

std::string series_label(const ReportInputs& in, const ReportPoint& p, bool with_file) {
  std::string label = p.result.strategy;
  if (in.engines.size() > 1) label += " (" + p.result.engine + ")";
  if (with_file) label += " [" + in.files.at(p.file).name + "]";
  return label;
}

bool several_scenarios(const std::vector<const ReportPoint*>& points) {
  std::map<std::string, std::set<std::size_t>> files;  // engine -> its files in the figure
  for (const ReportPoint* p : points)
    if (files[p->result.engine].insert(p->file).second && files[p->result.engine].size() > 1) return true;
  return false;
}

const std::vector<std::string>& strategy_palette() {
  static const std::vector<std::string> palette = {
      "#999999",  // grey: single
      "#e41a1c",  // red: ps
      "#ff7f00",  // orange: wfbp
      "#377eb8",  // blue: poseidon
      "#984ea3",  // purple: tf_stock
      "#a65628",  // brown: adam
      "#f781bf",  // pink: onebit
      "#4daf4a",  // green: allreduce
      "#00b5b8",  // cyan: hier_allreduce
      "#b8a200",  // olive gold: tree_allreduce
      "#1a1a6e",  // navy
      "#000000",  // black
  };
  return palette;
}

std::string strategy_colour(const std::string& strategy) {
  const auto& names = strategy_names();
  const auto& palette = strategy_palette();
  const auto it = std::find(names.begin(), names.end(), strategy);
  // A name the palette does not know (none today: readers accept strategy_names() only).
  return it == names.end() ? palette.back() : palette[std::size_t(it - names.begin()) % palette.size()];
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
  return r.model + ", " + counted(r.cluster.nodes, "node") + " x " + std::to_string(r.cluster.gpus_per_node) +
         " GPU, " + num(r.cluster.nic_gbps) + " Gbit/s";
}

}  // namespace possim::report
