// Least NIC bandwidth per model: for each strategy and node count swept over several NIC
// speeds, the slowest swept speed whose scaling efficiency reaches 90% (what `possim plan`
// refines by bisection), as clustered bars on a log axis.
#include <map>
#include <set>
#include <tuple>

#include "model/strategies/strategy.hpp"
#include "report/figure.hpp"

namespace possim::report {

namespace {
constexpr double kTarget = 0.9;
constexpr const char* kNotReached = "not reached";
// `using` columns with every (y) replaced by `y`.
std::string replace_y(std::string s, const std::string& y) {
  for (std::size_t at = 0; (at = s.find("(y)", at)) != std::string::npos; at += y.size()) s.replace(at, 3, y);
  return s;
}
}  // namespace

void add_min_bandwidth_figures(const ReportInputs& in, std::size_t max, FigureSet& out) {
  // (model, batch, GPUs/node, extra) -> its points
  using Key = std::tuple<std::string, int, int, std::string>;
  std::map<Key, std::vector<const ReportPoint*>> groups;
  for (const ReportPoint& p : in.points)
    if (!is_reference(p.result.strategy))
      groups[Key{p.result.model, p.result.batch_per_gpu, p.result.cluster.gpus_per_node, p.extra}].push_back(&p);
  std::size_t made = 0, skipped = 0;
  for (const auto& [key, points] : groups) {
    // series -> nodes -> bandwidth -> efficiency; the scenario in a label only where several share the figure
    const bool with_file = several_scenarios(points);
    std::map<std::string, std::map<int, std::map<double, double>>> by_series;
    std::set<std::size_t> files;
    for (const ReportPoint* p : points) {
      const Result& r = p->result;
      by_series[series_label(in, *p, with_file)][r.cluster.nodes].emplace(r.cluster.nic_gbps, r.efficiency);
      files.insert(p->file);
    }
    std::set<int> node_counts;  // those swept over at least two speeds
    std::set<double> speeds;    // every speed swept there
    for (const auto& [series, by_nodes] : by_series)
      for (const auto& [nodes, by_gbps] : by_nodes)
        if (by_gbps.size() >= 2 && nodes > 1) {
          node_counts.insert(nodes);
          for (const auto& [gbps, eff] : by_gbps) speeds.insert(gbps);
        }
    if (node_counts.empty()) continue;
    if (made == max) {
      ++skipped;
      continue;
    }
    Figure f;
    f.id = figure_id("min-bandwidth", made);
    f.section = "Least NIC bandwidth";
    f.title = "Least swept NIC for 90% scaling efficiency: " + std::get<0>(key) + ", " +
              std::to_string(std::get<2>(key)) + " GPU/node";
    f.files = files;
    std::vector<std::string> missing;
    bool any_bar = false;
    // A cell: the least speed reaching the target, "not reached" (swept at two speeds or more,
    // never reached), or "?" (not swept there).
    f.data = "# series";
    for (int n : node_counts) f.data += "\t" + std::to_string(n) + " nodes";
    f.data += "\n";
    for (const auto& [series, by_nodes] : by_series) {
      f.data += gp_text(series);
      for (int n : node_counts) {
        std::string cell = "?";
        const auto it = by_nodes.find(n);
        if (it != by_nodes.end() && it->second.size() >= 2) {
          cell = kNotReached;
          for (const auto& [gbps, eff] : it->second)
            if (eff >= kTarget) {
              cell = num(gbps);
              any_bar = true;
              break;
            }
          if (cell == kNotReached) missing.push_back(series + " at " + std::to_string(n) + " nodes");
        }
        f.data += "\t" + cell;
      }
      f.data += "\n";
    }
    // No bar at all: gnuplot cannot draw it ("all points y value undefined"); the page says why.
    if (!any_bar) {
      out.notes.push_back("least-bandwidth figure for " + std::get<0>(key) +
                          " left out: no strategy reached 90% scaling efficiency at any swept speed");
      continue;
    }
    ++made;
    f.what = "For each strategy and node count swept over several NIC speeds, the slowest swept speed at "
             "which scaling efficiency reaches 90% (possim plan finds the least speed between grid points). "
             "A hatched bar to the top of the axis, labelled not reached: swept there, but 90% is not reached "
             "at any swept speed. No bar: not swept there" +
             (missing.empty() ? std::string(".") : " (not reached: " + [&] {
               std::string s;
               for (std::size_t i = 0; i < missing.size(); ++i) s += (i ? ", " : "") + missing[i];
               return s;
             }() + ").");
    // Bars by hand (boxxyerror from the bottom of the log axis), so that a not-reached bar can
    // stand at the place its bar would have: series r's cluster is centred on x = r, node
    // count j's bar at r + (j - (n - 1) / 2) * w.
    const double bottom = *speeds.begin() / 2, top = *speeds.rbegin() * 2;
    const std::size_t n = node_counts.size();
    const double w = 1.0 / double(n + 1), half = 0.45 * w;
    f.plot = "set title " + gp_quote(f.title) +
             "\nset ylabel 'Gbit/s per node (log)'\nset logscale y\nset grid ytics\n" + kKeySetting +
             "set datafile missing '?'\nset xtics nomirror\nset yrange [" + num(bottom) + ":" + num(top) + "]\n"
             // Every series keeps its place when its bars are missing.
             "set xrange [-0.6:" + num(double(by_series.size()) - 0.4) + "]\nset xtics (";
    std::size_t r = 0;
    for (const auto& [series, by_nodes] : by_series) {
      f.plot += std::string(r ? ", " : "") + gp_quote(series) + " " + std::to_string(r);
      ++r;
    }
    f.plot += ")\nplot ";
    std::size_t j = 0;
    static const char* const node_colours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#9c755f"};
    for (int nodes : node_counts) {
      const std::string col = std::to_string(j + 2);
      const std::string x = "($0 + " + num((double(j) - double(n - 1) / 2) * w) + ")";
      const std::string box = x + ":(y):($0 + " + num((double(j) - double(n - 1) / 2) * w - half) + "):($0 + " +
                              num((double(j) - double(n - 1) / 2) * w + half) + "):(" + num(bottom) + "):(y)";
      const std::string colour = std::string("lc rgb '") + node_colours[j % 6] + "'";
      const std::string reached = "(strcol(" + col + ") eq '" + kNotReached + "' ? NaN : column(" + col + "))";
      const std::string not_reached = "(strcol(" + col + ") eq '" + kNotReached + "' ? " + num(top) + " : NaN)";
      const std::string src = j ? "''" : "'" + f.id + ".dat'";
      f.plot += std::string(j ? ", \\\n     " : "") + src + " using " + replace_y(box, reached) +
                " with boxxyerror fs solid 0.85 border lc rgb '#333333' " + colour + " title " +
                gp_quote(std::to_string(nodes) + " nodes") + ", \\\n     '' using " + replace_y(box, not_reached) +
                " with boxxyerror fs pattern 4 border " + colour + " " + colour + " notitle, \\\n     '' using " + x +
                ":(" + num(top / 1.15) + "):(strcol(" + col + ") eq '" + kNotReached +
                "' ? 'not reached' : '') with labels rotate by 90 right font ',9' tc rgb '#333333' notitle";
      ++j;
    }
    f.plot += "\n";
    out.figures.push_back(std::move(f));
  }
  if (skipped) out.notes.push_back(std::to_string(skipped) + " more least-bandwidth figures left out (--max-figures)");
}

}  // namespace possim::report
