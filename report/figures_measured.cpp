// Measured points (a file `possim validate` reads) beside possim's predictions: predicted
// against measured images/s, each point labelled with its error.
#include <algorithm>
#include <cmath>
#include <map>

#include "model/run/engine_registry.hpp"
#include "report/figure.hpp"

namespace possim::report {

std::vector<MeasuredMatch> match_measured(const ReportInputs& in) {
  std::vector<MeasuredMatch> out;
  for (const auto& m : in.measured.points) {
    const auto net = in.measured.networks.find(m.model);
    const std::string model = net == in.measured.networks.end() ? m.model : net->second.name;
    MeasuredMatch base;
    base.measured = &m;
    base.measured_images_per_s = m.iteration_s > 0 ? m.images_per_iteration() / m.iteration_s : 0;
    bool found = false;
    for (const ReportPoint& p : in.points) {
      const Result& r = p.result;
      if (r.model != model || r.strategy != m.strategy || r.cluster.nodes != m.nodes ||
          r.cluster.gpus_per_node != m.gpus_per_node || r.batch_per_gpu != m.batch ||
          std::fabs(r.cluster.nic_gbps - m.nic_gbps) > 1e-9 * m.nic_gbps || !(r.iteration_s > 0))
        continue;
      MeasuredMatch match = base;
      match.predicted = &p;
      match.predicted_images_per_s = r.images_per_s;
      match.error = m.in_measured_unit(r.iteration_s) / m.measured_value - 1;
      out.push_back(match);
      found = true;
    }
    if (!found) out.push_back(base);
  }
  return out;
}

double images_per_s_error(const MeasuredMatch& m) {
  return m.measured_images_per_s > 0 ? m.predicted_images_per_s / m.measured_images_per_s - 1 : 0;
}

void add_measured_figure(const ReportInputs& in, const std::vector<MeasuredMatch>& matches, FigureSet& out) {
  std::vector<const ReportPoint*> drawn;
  for (const auto& m : matches)
    if (m.predicted && m.measured_images_per_s > 0) drawn.push_back(m.predicted);
  const bool with_file = several_scenarios(drawn);
  std::map<std::string, std::vector<const MeasuredMatch*>> series;  // by label
  double lo = 0, hi = 0;
  for (const auto& m : matches) {
    if (!m.predicted || !(m.measured_images_per_s > 0)) continue;
    series[series_label(in, *m.predicted, with_file)].push_back(&m);
    for (const double v : {m.measured_images_per_s, m.predicted_images_per_s}) {
      lo = lo > 0 ? std::min(lo, v) : v;
      hi = std::max(hi, v);
    }
  }
  if (series.empty()) return;
  Figure f;
  f.id = "fig01-measured";
  f.section = "Measured vs predicted";
  f.title = "Predicted against measured throughput (" + in.measured.path + ")";
  f.what = "Each measured point (" + in.measured.path + ") against possim's prediction of it from the "
           "results, in images/s of the whole cluster; labels give the error in images/s, the quantity on the "
           "axes (predicted images/s / measured images/s - 1: + where possim predicts more throughput than "
           "measured). The table below gives the error in the unit measured, as possim validate reports it. "
           "Solid: equal; dashed: 10% off.";
  std::string plots;
  std::size_t block = 0;
  for (const auto& [label, points] : series) {
    f.data += "# " + gp_text(label) + "\n# measured images/s\tpredicted images/s\timages/s error\n";
    for (const MeasuredMatch* m : points) {
      char err[32];
      std::snprintf(err, sizeof err, "%+.0f%%", 100 * images_per_s_error(*m));
      f.data += num(m->measured_images_per_s) + "\t" + num(m->predicted_images_per_s) + "\t" + err + "\n";
      f.files.insert(m->predicted->file);
    }
    f.data += "\n\n";
    const std::string colour = strategy_colour(points.front()->predicted->result.strategy);
    const std::string src = "'" + f.id + ".dat' index " + std::to_string(block++);
    // Filled for a simulation, open for a closed form (as dashed lines elsewhere).
    const std::string point = capabilities_of(points.front()->predicted->result.engine).closed_form ? "6" : "7";
    plots += ", \\\n     " + src + " using 1:2 with points pt " + point + " ps 1.2 lc rgb '" + colour + "' title " + gp_quote(label) +
             ", \\\n     " + src + " using 1:2:3 with labels offset char 1.6,0.4 font ',9' tc rgb '" + colour + "' notitle";
  }
  const bool log = hi / lo >= 20;
  const double a = log ? lo / 1.3 : 0, b = hi * 1.1;
  f.plot = "set title " + gp_quote(f.title) + "\nset xlabel 'measured images/s'\nset ylabel 'predicted images/s'\n"
           "set grid\n" + kKeySetting + "set size ratio -1\n" +
           std::string(log ? "set logscale xy\n" : "") + "set xrange [" + num(a) + ":" + num(b) + "]\nset yrange [" +
           num(a) + ":" + num(b) + "]\nplot x with lines lw 1.5 lc rgb '#555555' title 'predicted = measured', \\\n"
           "     1.1 * x with lines dt 2 lc rgb '#999999' title '10% off', \\\n"
           "     0.9 * x with lines dt 2 lc rgb '#999999' notitle" + plots + "\n";
  f.height = 640;
  f.width = 700;
  out.figures.push_back(std::move(f));
}

}  // namespace possim::report
