#include "calibrate/fit_report.hpp"

#include <cmath>
#include <cstdio>

namespace possim::calibrate {

namespace {
std::string three_decimals(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", x);
  return b;
}
}  // namespace

nlohmann::json points_json(const std::vector<PointResult>& points) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : points) {
    const MeasurementPoint& p = r.point;
    nlohmann::json j{{"where", p.where},
                     {"model", p.model},
                     {"strategy", p.strategy},
                     {"stack", p.stack},
                     {"nodes", p.nodes},
                     {"gpus_per_node", p.gpus_per_node},
                     {"nic_gbps", p.nic_gbps},
                     {"batch", p.batch},
                     {"measured_as", p.measured_as},
                     {"measured", p.measured_value},
                     {"predicted", p.in_measured_unit(r.predicted_s)},
                     {"measured_iteration_s", p.iteration_s},
                     {"predicted_iteration_s", r.predicted_s},
                     {"relative_error", r.residual}};
    if (p.measured_as == "speedup") j["reference_images_per_s"] = p.reference_images_per_s;
    if (!p.source.empty()) j["source"] = p.source;
    a.push_back(j);
  }
  return a;
}

// Pairs of parameters the points cannot tell apart (|correlation| above 0.95).
std::vector<std::string> confounded(const ClusterFit& f) {
  std::vector<std::string> out;
  // A parameter the points do not determine at all has no meaningful correlation.
  const auto determined = [&](std::size_t i) { return i < f.sigma.size() && std::isfinite(f.sigma[i]); };
  for (std::size_t i = 0; i < f.names.size(); ++i)
    for (std::size_t j = i + 1; j < f.names.size(); ++j)
      if (determined(i) && determined(j) && i < f.correlation.size() && j < f.correlation[i].size() &&
          std::fabs(f.correlation[i][j]) > 0.95)
        out.push_back(f.names[i] + " and " + f.names[j] + " (correlation " +
                      three_decimals(f.correlation[i][j]) + ")");
  return out;
}


nlohmann::json fit_sidecar(const ClusterFit& f, const std::string& measurements_path, const std::string& engine,
                           const Profile& base, const ClusterAssumptions& cluster, int shards,
                           const std::vector<PointResult>& predicted) {
  nlohmann::json params = nlohmann::json::array();
  for (std::size_t i = 0; i < f.names.size(); ++i)
    params.push_back(
        {{"name", f.names[i]},
         {"start", f.start[i]},
         {"value", f.values[i]},
         {"sigma",
          std::isfinite(f.sigma[i]) ? nlohmann::json(f.sigma[i]) : nlohmann::json("unidentified")},
         {"at_bound", f.lm.at_bound[i] < 0   ? "lower"
                      : f.lm.at_bound[i] > 0 ? "upper"
                                             : "no"},
         {"range",
          {f.range(i).first, f.range(i).second}}});
  return {
      {"kind", "fit"},
      {"measurements", measurements_path},
      {"engine", engine},
      {"base_profile", {{"name", base.name}, {"path", base.path}}},
      {"method",
       "Levenberg-Marquardt over log-parameters, numeric Jacobian; residual = predicted / "
       "measured - 1 of the iteration time, predicted by the " +
           std::string(engine) +
           " engine; covariance s^2 (J^T J)^-1 with s^2 = SSR / (points - parameters); 1-sigma"},
      {"assumptions",
       {{"latency_s", cluster.latency_s}, {"server_shards", shards}, {"placement", "colocated"}}},
      {"parameters", params},
      {"correlation", f.correlation},
      {"confounded", confounded(f)},
      {"points", points_json(f.points)},
      {"rms_residual", f.rms_residual},
      {"iterations", f.lm.iterations},
      {"converged", f.lm.converged},
      {"predicted", points_json(predicted)}};
}

}  // namespace possim::calibrate
