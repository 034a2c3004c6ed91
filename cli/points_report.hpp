// Measured points beside their predictions, as `calibrate fit` and `validate` print and
// write them: in the unit each point was measured in, with the relative error.
#pragma once
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "calibrate/cluster_fit.hpp"
#include "calibrate/fit_report.hpp"
#include "model/input/measurements.hpp"

namespace possim::cli {

// Several measurement files as one set (points in file order).
MeasurementSet load_measurement_files(const std::vector<std::string>& paths, int batch);

// One row per point: where, model, strategy, stack, nodes, Gbit/s, measured, predicted, error.
void print_points(std::ostream& out, const std::vector<calibrate::PointResult>& points);
// "mean |error| X%, worst Y% (where)" and the RMS.
struct ErrorSummary {
  double mean_abs = 0, rms = 0, worst = 0;
  std::string worst_where;
};
ErrorSummary summarize(const std::vector<calibrate::PointResult>& points);

// A progress line on stderr for a fit or a prediction ("fit: 12 evaluations, ...").
calibrate::FitProgress progress_line(const std::string& what, bool enabled);

}  // namespace possim::cli
