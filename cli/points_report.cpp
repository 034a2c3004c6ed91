#include "cli/points_report.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/table.hpp"

namespace possim::cli {

namespace cal = possim::calibrate;

MeasurementSet load_measurement_files(const std::vector<std::string>& paths, int batch) {
  MeasurementSet all;
  for (const auto& path : paths) {
    MeasurementSet m = load_measurements(path, batch);
    all.path += (all.path.empty() ? "" : " + ") + m.path;
    for (auto& p : m.points) all.points.push_back(std::move(p));
    for (auto& [k, v] : m.networks) all.networks.emplace(k, std::move(v));
  }
  return all;
}

namespace {

std::string unit(const MeasurementPoint& p) {
  if (p.measured_as == "images_per_s") return " img/s";
  if (p.measured_as == "speedup") return "x";
  return " s";
}

}  // namespace

void print_points(std::ostream& out, const std::vector<cal::PointResult>& points) {
  Table t({"point", "model", "strategy", "stack", "nodes", "Gbit/s", "measured", "predicted",
           "error"});
  for (const auto& r : points) {
    const MeasurementPoint& p = r.point;
    t.add({p.where, p.model, p.strategy, p.stack.empty() ? "default" : p.stack,
           std::to_string(p.nodes), fixed(p.nic_gbps, 1), g4(p.measured_value) + unit(p),
           g4(p.in_measured_unit(r.predicted_s)) + unit(p), fixed(100 * r.residual, 2) + "%"});
  }
  t.print(out);
}

ErrorSummary summarize(const std::vector<cal::PointResult>& points) {
  ErrorSummary s;
  for (const auto& r : points) {
    const double a = std::fabs(r.residual);
    s.mean_abs += a;
    s.rms += a * a;
    if (a >= s.worst) {
      s.worst = a;
      s.worst_where = r.point.where;
    }
  }
  if (!points.empty()) {
    s.mean_abs /= double(points.size());
    s.rms = std::sqrt(s.rms / double(points.size()));
  }
  return s;
}

calibrate::FitProgress progress_line(const std::string& what, bool enabled) {
  if (!enabled) return {};
  const bool tty = isatty(STDERR_FILENO) != 0;
  return [what, tty](int evaluations, double ssr) {
    // On a terminal one line redrawn; in a file one line every 10 evaluations.
    if (tty) {
      std::fprintf(stderr, "\r%s: %d evaluation%s, sum of squared residuals %.4g   ", what.c_str(),
                   evaluations, evaluations == 1 ? "" : "s", ssr);
    } else if (evaluations % 10 == 1) {
      std::fprintf(stderr, "%s: %d evaluation%s, sum of squared residuals %.4g\n", what.c_str(),
                   evaluations, evaluations == 1 ? "" : "s", ssr);
    }
    std::fflush(stderr);
  };
}

}  // namespace possim::cli
