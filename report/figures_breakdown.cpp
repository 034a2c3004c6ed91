// Where the time goes (model/run/breakdown.hpp) as stacked bars: per model, each strategy
// at the largest cluster; and per model and strategy, each node count.
#include <algorithm>
#include <cmath>
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
// bar has, on a y axis from 0 to `y_max` (shared by the figures that are compared). False
// (nothing made) when no bar has any: gnuplot cannot plot nothing.
using Bars = std::vector<std::pair<std::string, Breakdown>>;

// The shares some bar has (more than 0.05% of its iteration).
std::vector<TimeShare> shares_drawn(const Bars& bars) {
  std::vector<TimeShare> shares;
  for (std::size_t i = 0; i < kTimeShares; ++i)
    for (const auto& [label, b] : bars)
      if (b.s[i] > 0.0005 * b.total()) {
        shares.push_back(TimeShare(i));
        break;
      }
  return shares;
}

bool stacked_bars(Figure& f, const Bars& bars, double y_max) {
  const std::vector<TimeShare> shares = shares_drawn(bars);
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
           "\nset ylabel 'seconds per iteration'\nset grid ytics\n" + kKeySetting +
           "set style data histograms\nset style histogram rowstacked\n"
           "set style fill solid 0.85 border -1\nset boxwidth 0.7\nset yrange [0:" + num(y_max) + "]\n" +
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

// The top of the y axis the breakdown figures of a model share: the tallest bar among them,
// with room above it, rounded up to 1, 2 or 5 times a power of ten.
double shared_top(double tallest) {
  if (!(tallest > 0)) return 1;
  const double want = tallest * 1.05;
  double step = std::pow(10.0, std::floor(std::log10(want)));
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * step >= want) return m * step;
  return 10 * step;
}

void add_breakdown_figures(const ReportInputs& in, std::size_t max, FigureSet& out) {
  // Every figure is made first and drawn last, so that the stacked bars of one model (the
  // strategies at the largest cluster, each strategy across node counts) share one y scale
  // and can be compared by their heights.
  struct Pending {
    Figure f;
    std::string model;
    std::vector<std::pair<std::string, Breakdown>> bars;
    bool nodes_axis = false;
  };
  std::vector<Pending> pending;
  std::size_t made = 0, skipped = 0;
  for (const auto& [model, points] : largest_cluster(in)) {
    const bool with_file = several_scenarios(points);
    Pending p;
    std::set<std::string> seen;
    for (const ReportPoint* q : points)
      if (seen.insert(series_label(in, *q, with_file)).second) {
        p.bars.emplace_back(series_label(in, *q, with_file), q->result.breakdown);
        p.f.files.insert(q->file);
      }
    if (shares_drawn(p.bars).empty()) continue;  // every share zero: no bar to draw
    if (made == max) {
      ++skipped;
      continue;
    }
    ++made;
    p.f.section = kSection;
    p.f.title = "Where an iteration goes: " + cluster_text(points.front()->result);
    p.f.what = kWhat + shares_caption() + ".";
    p.model = model;
    pending.push_back(std::move(p));
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
    Pending p;
    for (const auto& [nodes, q] : by_nodes) {
      p.bars.emplace_back(std::to_string(nodes), q->result.breakdown);
      p.f.files.insert(q->file);
    }
    const Result& r = by_nodes.begin()->second->result;
    if (shares_drawn(p.bars).empty()) continue;
    ++scaled;
    p.f.section = kSection;
    p.f.title = "Where an iteration goes vs nodes: " + r.model + ", " + r.strategy + " (" + r.engine + "), " +
                std::to_string(r.cluster.gpus_per_node) + " GPU/node, " + num(r.cluster.nic_gbps) + " Gbit/s";
    p.f.what = std::string(kWhat) + "One bar per node count. " + shares_caption() + ".";
    p.model = r.model;
    p.nodes_axis = true;
    pending.push_back(std::move(p));
  }
  std::map<std::string, double> tallest;  // per model
  for (const Pending& p : pending)
    for (const auto& [label, b] : p.bars) tallest[p.model] = std::max(tallest[p.model], b.total());
  std::size_t time_ids = 0, nodes_ids = 0;
  for (Pending& p : pending) {
    p.f.id = p.nodes_axis ? figure_id("time-nodes", nodes_ids++) : figure_id("time", time_ids++);
    p.f.what += " Every breakdown figure of " + p.model + " has the same y scale.";
    if (!stacked_bars(p.f, p.bars, shared_top(tallest[p.model]))) continue;
    if (p.nodes_axis) p.f.plot = "set xlabel 'nodes'\n" + p.f.plot;
    out.figures.push_back(std::move(p.f));
  }
  if (skipped) out.notes.push_back(std::to_string(skipped) + " more time-breakdown figures left out (--max-figures)");
}

}  // namespace possim::report
