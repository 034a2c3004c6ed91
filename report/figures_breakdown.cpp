// Where the time goes (model/run/breakdown.hpp) as stacked bars: per model, each strategy
// at the largest cluster; and per model and strategy, each node count.
#include <algorithm>
#include <map>
#include <tuple>

#include "model/strategies/strategy.hpp"
#include "report/figure.hpp"

namespace possim::report {

namespace {

// One colour per share in every figure: the GPU's own work in blues, waiting in warm colours.
const char* share_colour(TimeShare s) {
  static const char* colours[kTimeShares] = {"#1f77b4", "#d62728", "#ff7f0e", "#ffbb78",
                                             "#8c564b", "#aec7e8", "#9edae5", "#7f7f7f"};
  return colours[std::size_t(s)];
}

// A stacked bar per (label, breakdown): the data block and the plot, only the shares some
// bar has. False (nothing made) when no bar has any: gnuplot cannot plot nothing.
bool stacked_bars(Figure& f, const std::vector<std::pair<std::string, Breakdown>>& bars) {
  std::vector<TimeShare> shares;
  for (std::size_t i = 0; i < kTimeShares; ++i)
    for (const auto& [label, b] : bars)
      if (b.s[i] > 0.0005 * b.total()) {
        shares.push_back(TimeShare(i));
        break;
      }
  if (shares.empty()) return false;
  f.data = "# bar";
  for (TimeShare x : shares) f.data += std::string("\t") + column_name(x);
  f.data += "\n";
  std::size_t longest = 0;
  for (const auto& [label, b] : bars) {
    f.data += gp_text(label);
    for (TimeShare x : shares) f.data += "\t" + num(b[x]);
    f.data += "\n";
    longest = std::max(longest, label.size());
  }
  const bool slant = bars.size() * std::max<std::size_t>(longest, 4) > 60;
  f.plot = "set title " + gp_quote(f.title) +
           "\nset ylabel 'seconds per iteration'\nset grid ytics\nset key below horizontal\n"
           "set style data histograms\nset style histogram rowstacked\n"
           "set style fill solid 0.85 border -1\nset boxwidth 0.7\nset yrange [0:*]\n" +
           std::string(slant ? "set xtics nomirror rotate by 25 right\n" : "set xtics nomirror\n") + "plot ";
  for (std::size_t i = 0; i < shares.size(); ++i)
    f.plot += std::string(i ? ", \\\n     '' using " : "'" + f.id + ".dat' using ") + std::to_string(i + 2) +
              (i ? "" : ":xtic(1)") + " title " + gp_quote(short_name(shares[i])) + " lc rgb '" +
              share_colour(shares[i]) + "'";
  f.plot += "\n";
  return true;
}

std::string shares_caption() {
  std::string s;
  for (std::size_t i = 0; i < kTimeShares; ++i)
    s += std::string(i ? "; " : "") + short_name(TimeShare(i)) + ": " + share_meaning(TimeShare(i));
  return s;
}

const char* kSection = "Where the time goes";
const char* kWhat =
    "A steady iteration cut into what worker 0's GPU runs and what it waits for while idle (the "
    "instance that ended each idle gap, walked back through what held it); the pieces add up to the "
    "iteration. ";

}  // namespace

void add_breakdown_figures(const ReportInputs& in, std::size_t max, FigureSet& out) {
  std::size_t made = 0, skipped = 0;
  for (const auto& [model, points] : largest_cluster(in)) {
    std::vector<std::pair<std::string, Breakdown>> bars;
    Figure f;
    std::set<std::string> seen;
    for (const ReportPoint* p : points)
      if (seen.insert(series_label(in, *p)).second) {
        bars.emplace_back(series_label(in, *p), p->result.breakdown);
        f.files.insert(p->file);
      }
    if (bars.empty()) continue;
    if (made == max) {
      ++skipped;
      continue;
    }
    f.id = figure_id("time", made);
    f.section = kSection;
    f.title = "Where an iteration goes: " + cluster_text(points.front()->result);
    f.what = kWhat + shares_caption() + ".";
    if (!stacked_bars(f, bars)) continue;  // every share zero: no bar to draw
    ++made;
    out.figures.push_back(std::move(f));
  }
  // Per model and strategy, across node counts (everything else equal).
  using Key = std::tuple<std::string, std::string, std::string, int, double, int, std::string, std::size_t>;
  std::map<Key, std::map<int, const ReportPoint*>> series;
  for (const ReportPoint& p : in.points) {
    const Result& r = p.result;
    if (is_reference(r.strategy)) continue;
    series[Key{r.model, r.strategy, r.engine, r.cluster.gpus_per_node, r.cluster.nic_gbps, r.batch_per_gpu, p.extra,
               p.file}]
        .emplace(r.cluster.nodes, &p);
  }
  std::size_t scaled = 0;
  for (const auto& [key, by_nodes] : series) {
    if (by_nodes.size() < 2) continue;
    if (scaled == max) {
      ++skipped;
      continue;
    }
    Figure f;
    std::vector<std::pair<std::string, Breakdown>> bars;
    for (const auto& [nodes, p] : by_nodes) {
      bars.emplace_back(std::to_string(nodes), p->result.breakdown);
      f.files.insert(p->file);
    }
    const Result& r = by_nodes.begin()->second->result;
    f.id = figure_id("time-nodes", scaled);
    f.section = kSection;
    f.title = "Where an iteration goes vs nodes: " + r.model + ", " + r.strategy + " (" + r.engine + "), " +
              std::to_string(r.cluster.gpus_per_node) + " GPU/node, " + num(r.cluster.nic_gbps) + " Gbit/s";
    f.what = std::string(kWhat) + "One bar per node count. " + shares_caption() + ".";
    if (!stacked_bars(f, bars)) continue;
    ++scaled;
    f.plot = "set xlabel 'nodes'\n" + f.plot;
    out.figures.push_back(std::move(f));
  }
  if (skipped) out.notes.push_back(std::to_string(skipped) + " more time-breakdown figures left out (--max-figures)");
}

}  // namespace possim::report
