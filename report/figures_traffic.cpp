// Where the bytes go and when layers sync: per-node traffic per strategy (busiest node vs the
// mean node: Adam's owner hot spot), and each layer's sync window in one iteration, coloured by
// the scheme BestScheme chose for it.
#include <algorithm>
#include <map>

#include "model/run/engine_registry.hpp"
#include "report/figure.hpp"

namespace possim::report {

void add_traffic_figures(const ReportInputs& in, std::size_t max, FigureSet& out) {
  std::size_t made = 0, skipped = 0;
  for (const auto& [model, points] : largest_cluster(in)) {
    const bool with_file = several_scenarios(points);
    Figure f;
    f.data = "# series\tsent max MB\tsent mean MB\treceived max MB\treceived mean MB\n";
    std::set<std::string> seen;
    for (const ReportPoint* p : points) {
      const Result& r = p->result;
      const std::string label = series_label(in, *p, with_file);
      if (r.sent_bytes_max + r.received_bytes_max <= 0 || !seen.insert(label).second) continue;
      f.data += gp_text(label) + "\t" + num(r.sent_bytes_max / 1e6) + "\t" + num(r.sent_bytes_mean / 1e6) + "\t" +
                num(r.received_bytes_max / 1e6) + "\t" + num(r.received_bytes_mean / 1e6) + "\n";
      f.files.insert(p->file);
    }
    if (seen.empty()) continue;
    std::size_t longest = 0;
    for (const auto& label : seen) longest = std::max(longest, label.size());
    // Labels that would run into each other stand at a slant.
    const bool slant = seen.size() * std::max<std::size_t>(longest, 4) > 60;
    if (made == max) {
      ++skipped;
      continue;
    }
    f.id = figure_id("traffic", made++);
    f.section = "Per-node traffic";
    f.title = "Bytes per node per iteration: " + cluster_text(points.front()->result);
    f.what = "Network bytes each node sends and receives per iteration, the busiest node beside the mean "
             "node. Where busiest and mean differ, one node is a hot spot (Adam's owner shard); where they "
             "agree, the load is spread evenly.";
    f.plot = "set title " + gp_quote(f.title) +
             "\nset ylabel 'MB per iteration'\nset grid ytics\n" + kKeySetting +
             "set style data histograms\nset style histogram clustered gap 1\n"
             "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:*]\n" +
             std::string(slant ? "set xtics nomirror rotate by 25 right\n" : "set xtics nomirror\n") +
             "plot '" + f.id + ".dat' using 2:xtic(1) title 'sent, busiest node' lc rgb '#1f77b4', \\\n"
             "     '' using 3 title 'sent, mean node' lc rgb '#aec7e8', \\\n"
             "     '' using 4 title 'received, busiest node' lc rgb '#d62728', \\\n"
             "     '' using 5 title 'received, mean node' lc rgb '#ff9896'\n";
    out.figures.push_back(std::move(f));
  }
  if (skipped) out.notes.push_back(std::to_string(skipped) + " more per-node traffic figures left out (--max-figures)");
}

void add_layer_figures(const ReportInputs& in, std::size_t max, FigureSet& out) {
  static const std::vector<std::string> preference = {"poseidon", "wfbp", "adam", "ps", "tf_stock", "onebit", "allreduce"};
  const std::vector<std::string> engines = predicting_engines();
  std::size_t made = 0, skipped = 0;
  for (const auto& [model, points] : largest_cluster(in)) {
    // The preferred strategy whose layers sync in the iteration.
    const ReportPoint* chosen = nullptr;
    for (std::size_t k = 0; k < preference.size() * engines.size() && !chosen; ++k) {
      const std::string& strategy = preference[k / engines.size()];
      const std::string& engine = engines[k % engines.size()];
      for (const ReportPoint* p : points)
        if (p->result.strategy == strategy && p->result.engine == engine &&
            std::any_of(p->result.layers.begin(), p->result.layers.end(), [](const LayerResult& l) { return l.sync_end_s > l.sync_start_s && l.sync_start_s >= 0; })) {
          chosen = p;
          break;
        }
    }
    if (!chosen) continue;
    if (made == max) {
      ++skipped;
      continue;
    }
    const Result& r = chosen->result;
    Figure f;
    f.id = figure_id("layers", made++);
    f.section = "Per-layer scheme and sync windows";
    f.title = "Sync windows: " + cluster_text(r) + ", " + r.strategy + " (" + r.engine + ")";
    f.what = "When each layer's synchronization (copies, pushes, pulls, broadcasts, applies: every task of "
             "the layer but its compute) runs within one steady iteration, from the iteration's start; the "
             "colour is the scheme chosen for the layer. The dashed line is the end of the iteration.";
    f.files.insert(chosen->file);
    std::vector<std::string> schemes;
    for (const LayerResult& l : r.layers)
      if (l.sync_start_s >= 0 && std::find(schemes.begin(), schemes.end(), l.scheme) == schemes.end()) schemes.push_back(l.scheme);
    std::string plots, tics;
    const std::size_t n = r.layers.size();
    const std::size_t every = n > 48 ? (n + 47) / 48 : 1;  // at most 48 labels
    for (std::size_t i = 0; i < n; ++i)
      if (i % every == 0) tics += std::string(tics.empty() ? "" : ", ") + gp_quote(r.layers[i].name) + " " + std::to_string(i);
    // A scheme has its colour in every figure (model/sync_plan.hpp names them).
    static const std::map<std::string, std::string> colours = {
        {"ps", "#ff7f0e"},     {"sfb", "#1f77b4"},       {"adam", "#8c564b"},
        {"onebit", "#e377c2"}, {"allreduce", "#2ca02c"}, {"local", "#7f7f7f"}};
    for (std::size_t s = 0; s < schemes.size(); ++s) {
      f.data += "# scheme " + gp_text(schemes[s]) + "\n# layer\tstart ms\tend ms\tname\n";
      for (std::size_t i = 0; i < n; ++i) {
        const LayerResult& l = r.layers[i];
        if (l.scheme != schemes[s] || l.sync_start_s < 0) continue;
        f.data += std::to_string(i) + "\t" + num(l.sync_start_s * 1e3) + "\t" + num(l.sync_end_s * 1e3) + "\t" + gp_text(l.name) + "\n";
      }
      f.data += "\n\n";
      plots += std::string(plots.empty() ? "" : ", \\\n     ") + "'" + f.id + ".dat' index " + std::to_string(s) +
               " using (($2+$3)/2):1:2:3:($1-0.38):($1+0.38) with boxxyerror fs solid 0.85 lc rgb '" +
               (colours.count(schemes[s]) ? colours.at(schemes[s]) : std::string("#17becf")) + "' title " +
               gp_quote(schemes[s]);
    }
    double end_s = r.iteration_s;
    for (const LayerResult& l : r.layers) end_s = std::max(end_s, l.sync_end_s);
    f.height = int(std::min<std::size_t>(1400, std::max<std::size_t>(460, 120 + 14 * std::min<std::size_t>(n, 96))));
    f.plot = "set title " + gp_quote(f.title) + "\nset xlabel 'time from the iteration''s start (ms)'\n"
             "set ytics (" + tics + ")\nset ytics font ',9'\nset yrange [" + num(double(n) - 0.5) + ":-0.5]\n"
             "set xrange [0:" + num(end_s * 1e3 * 1.03) + "]\nset grid xtics\n" + kKeySetting +
             "set arrow from " + num(r.iteration_s * 1e3) + ", graph 0 to " + num(r.iteration_s * 1e3) +
             ", graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'\nplot " + plots + "\n";
    out.figures.push_back(std::move(f));
  }
  if (skipped) out.notes.push_back(std::to_string(skipped) + " more sync-window figures left out (--max-figures)");
}

}  // namespace possim::report
