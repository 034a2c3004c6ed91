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
}  // namespace

void add_min_bandwidth_figures(const ReportInputs& in, std::size_t max, FigureSet& out) {
  // (model, batch, GPUs/node, extra) -> series -> nodes -> bandwidth -> efficiency
  using Key = std::tuple<std::string, int, int, std::string>;
  std::map<Key, std::map<std::string, std::map<int, std::map<double, double>>>> sweeps;
  std::map<Key, std::set<std::size_t>> files;
  for (const ReportPoint& p : in.points) {
    const Result& r = p.result;
    if (is_reference(r.strategy)) continue;
    const Key k{r.model, r.batch_per_gpu, r.cluster.gpus_per_node, p.extra};
    sweeps[k][series_label(in, p)][r.cluster.nodes].emplace(r.cluster.nic_gbps, r.efficiency);
    files[k].insert(p.file);
  }
  std::size_t made = 0, skipped = 0;
  for (const auto& [key, by_series] : sweeps) {
    std::set<int> node_counts;  // those swept over at least two speeds
    for (const auto& [series, by_nodes] : by_series)
      for (const auto& [nodes, by_gbps] : by_nodes)
        if (by_gbps.size() >= 2 && nodes > 1) node_counts.insert(nodes);
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
    f.files = files[key];
    std::vector<std::string> missing;
    bool any_bar = false;
    f.data = "# series";
    for (int n : node_counts) f.data += "\t" + std::to_string(n) + " nodes";
    f.data += "\n";
    for (const auto& [series, by_nodes] : by_series) {
      f.data += gp_text(series);
      for (int n : node_counts) {
        std::string cell = "?";  // not swept at this node count, or not reached
        const auto it = by_nodes.find(n);
        if (it != by_nodes.end() && it->second.size() >= 2) {
          for (const auto& [gbps, eff] : it->second)
            if (eff >= kTarget) {
              cell = num(gbps);
              any_bar = true;
              break;
            }
          if (cell == "?") missing.push_back(series + " at " + std::to_string(n) + " nodes");
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
             "No bar: not swept there, or not reached at any swept speed" +
             (missing.empty() ? std::string(".") : " (not reached: " + [&] {
               std::string s;
               for (std::size_t i = 0; i < missing.size(); ++i) s += (i ? ", " : "") + missing[i];
               return s;
             }() + ").");
    f.plot = "set title " + gp_quote(f.title) +
             "\nset ylabel 'Gbit/s per node (log)'\nset logscale y\nset grid ytics\nset key below horizontal\n"
             "set datafile missing '?'\nset style data histograms\nset style histogram clustered gap 1\n"
             "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset xtics nomirror\n" +
             // Every series keeps its place when its bars are missing.
             "set xrange [-0.6:" + num(double(by_series.size()) - 0.4) + "]\nplot ";
    std::size_t col = 2;
    for (int n : node_counts) {
      f.plot += std::string(col > 2 ? ", \\\n     '' using " : "'" + f.id + ".dat' using ") + std::to_string(col) +
                (col == 2 ? ":xtic(1)" : "") + " title " + gp_quote(std::to_string(n) + " nodes");
      ++col;
    }
    f.plot += "\n";
    out.figures.push_back(std::move(f));
  }
  if (skipped) out.notes.push_back(std::to_string(skipped) + " more least-bandwidth figures left out (--max-figures)");
}

}  // namespace possim::report
