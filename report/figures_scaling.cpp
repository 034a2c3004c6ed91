// Line figures over one input: speedup vs nodes (with the linear line) and throughput vs
// NIC bandwidth, one figure per combination of the other inputs, one line per strategy.
#include <algorithm>
#include <map>
#include <tuple>

#include "model/strategies/strategy.hpp"
#include "model/run/engine_registry.hpp"
#include "report/figure.hpp"

namespace possim::report {

namespace {

struct LineKind {
  const char* id;
  const char* section;
  const char* x_label;
  const char* y_label;
  bool x_is_nodes;  // else the bandwidth
  const char* what;
};

const LineKind kSpeedup = {"speedup", "Speedup vs nodes", "nodes", "speedup over one GPU", true,
                           "Speedup (cluster images/s over one GPU of the same profile and engine) against "
                           "the number of nodes, one line per strategy; the dashed line is linear scaling "
                           "(nodes x GPUs per node)."};
const LineKind kBandwidth = {"bandwidth", "Throughput vs bandwidth", "NIC line rate (Gbit/s)",
                             "images/s (whole cluster)", false,
                             "Training throughput of the whole cluster against each node's NIC line rate, "
                             "one line per strategy, at each node count above one (the largest first)."};

// Everything but the x input and the strategy: points with the same context share a figure.
// Ordered by number (1, 2, 10 Gbit/s), not by text.
using Context = std::tuple<std::string, int, int, double, double, std::string>;
Context context_key(const ReportPoint& p, bool x_is_nodes) {
  const Result& r = p.result;
  // Bandwidth figures: the largest node count first (what --max-figures keeps).
  return {r.model, r.batch_per_gpu, r.cluster.gpus_per_node, x_is_nodes ? r.cluster.nic_gbps : -double(r.cluster.nodes),
          r.cluster.latency_s, p.extra};
}

// The context as a figure's title.
std::string context(const ReportPoint& p, bool x_is_nodes) {
  const Result& r = p.result;
  std::string c = r.model + ", batch " + std::to_string(r.batch_per_gpu) + "/GPU, " +
                  std::to_string(r.cluster.gpus_per_node) + " GPU/node";
  c += x_is_nodes ? ", " + num(r.cluster.nic_gbps) + " Gbit/s"
                  : ", " + std::to_string(r.cluster.nodes) + (r.cluster.nodes == 1 ? " node" : " nodes");
  if (r.cluster.latency_s != 50e-6) c += ", latency " + num(r.cluster.latency_s * 1e6) + " us";
  if (!p.extra.empty()) c += ", " + p.extra;
  return c;
}

void add_line_figures(const ReportInputs& in, const LineKind& kind, std::size_t max, FigureSet& out) {
  // context -> its points
  std::map<Context, std::vector<const ReportPoint*>> contexts;
  for (const ReportPoint& p : in.points) {
    if (is_reference(p.result.strategy)) continue;  // one node: no line
    // At one node no byte crosses a NIC: throughput against bandwidth is flat lines.
    if (!kind.x_is_nodes && p.result.cluster.nodes < 2) continue;
    contexts[context_key(p, kind.x_is_nodes)].push_back(&p);
  }
  // context -> series -> x -> point (the first of equal ones); a series is labelled with its
  // scenario only where the figure holds several.
  std::map<Context, std::map<std::string, std::map<double, const ReportPoint*>>> groups;
  for (const auto& [key, points] : contexts) {
    const bool with_file = several_scenarios(points);
    for (const ReportPoint* p : points) {
      const double x = kind.x_is_nodes ? p->result.cluster.nodes : p->result.cluster.nic_gbps;
      groups[key][series_label(in, *p, with_file)].emplace(x, p);
    }
  }
  std::size_t made = 0, skipped = 0;
  for (const auto& [key, series] : groups) {
    const std::string ctx = context(*series.begin()->second.begin()->second, kind.x_is_nodes);
    std::set<double> xs;
    for (const auto& [label, points] : series)
      for (const auto& [x, p] : points) xs.insert(x);
    if (xs.size() < 2) continue;  // nothing to draw a line through
    if (made == max) {
      ++skipped;
      continue;
    }
    Figure f;
    f.id = "fig" + std::string(made < 9 ? "0" : "") + std::to_string(made + 1) + "-" + kind.id;
    f.section = kind.section;
    f.title = ctx;
    f.what = kind.what;
    std::string plots;
    std::size_t block = 0;
    int gpus = 1;
    bool error_bars = false;
    for (const auto& [label, points] : series) {
      const ReportPoint& first = *points.begin()->second;
      gpus = first.result.cluster.gpus_per_node;
      // A series whose every point has its 95% interval (a fitted profile) draws it as error bars.
      const bool bars = std::all_of(points.begin(), points.end(), [](const auto& xp) { return bool(xp.second->result.interval); });
      error_bars = error_bars || bars;
      f.data += "# " + gp_text(label) + (bars ? "\n# x\ty\tlo\thi\n" : "\n# x\ty\n");
      for (const auto& [x, p] : points) {
        const Result& r = p->result;
        f.data += num(x) + "\t" + num(kind.x_is_nodes ? r.speedup : r.images_per_s);
        if (bars)
          f.data += "\t" + num(kind.x_is_nodes ? r.interval->speedup_lo : r.interval->images_per_s_lo) + "\t" +
                    num(kind.x_is_nodes ? r.interval->speedup_hi : r.interval->images_per_s_hi);
        f.data += "\n";
        f.files.insert(p->file);
      }
      f.data += "\n\n";
      const std::string colour = strategy_colour(first.result.strategy);
      const std::string index = "'" + f.id + ".dat' index " + std::to_string(block++);
      // The bars first, so that the line's markers are drawn over them.
      if (bars)
        plots += std::string(plots.empty() ? "" : ", \\\n     ") + index +
                 " using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lw 1 lc rgb '" + colour + "' notitle";
      plots += std::string(plots.empty() ? "" : ", \\\n     ") + index +
               " using 1:2 with linespoints lw 2 pt 7 ps 0.8 lc rgb '" + colour +
               "'" + (capabilities_of(first.result.engine).closed_form && in.engines.size() > 1 ? " dt 2" : "") +
               " title " + gp_quote(label);
    }
    if (error_bars) f.what += " Error bars: 95% intervals from the profile's fit covariance (results.json *_lo, *_hi).";
    const double lo = *xs.begin(), hi = *xs.rbegin();
    const bool log_x = hi / lo >= (kind.x_is_nodes ? 64 : 10);
    f.plot = "set title " + gp_quote(ctx) + "\nset xlabel " + gp_quote(kind.x_label) + "\nset ylabel " +
             gp_quote(kind.y_label) + "\nset grid\n" + kKeySetting;
    if (log_x) {
      // Ticks at the values drawn (1, 2, 5, 10, 25 Gbit/s) where they are few, else powers of 2.
      std::string tics;
      for (const double x : xs) tics += std::string(tics.empty() ? "" : ", ") + num(x);
      f.plot += "set logscale x 2\n" + std::string(xs.size() <= 12 ? "set xtics (" + tics + ")\n" : "");
    }
    if (kind.x_is_nodes) {
      // Linear scaling from the origin (or from 1 node on a log axis).
      f.plot += "set xrange [" + num(log_x ? lo : 0) + ":" + num(hi * (log_x ? 1.1 : 1.04)) + "]\nset yrange [0:*]\n";
      plots += ", \\\n     x * " + std::to_string(gpus) + " with lines dt 2 lw 1.5 lc rgb '#555555' title 'linear'";
    } else {
      f.plot += "set xrange [" + num(lo / (log_x ? 1.2 : 1)) + ":" + num(hi * (log_x ? 1.2 : 1.04)) + "]\nset yrange [0:*]\n";
    }
    f.plot += "plot " + plots + "\n";
    out.figures.push_back(std::move(f));
    ++made;
  }
  if (skipped)
    out.notes.push_back(std::to_string(skipped) + " more " + kind.section + " figures left out (--max-figures)");
}

}  // namespace

void add_scaling_figures(const ReportInputs& in, std::size_t max_per_kind, FigureSet& out) {
  add_line_figures(in, kSpeedup, max_per_kind, out);
  add_line_figures(in, kBandwidth, max_per_kind, out);
}

}  // namespace possim::report
