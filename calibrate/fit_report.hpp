// What a fit reports, as JSON: every point beside its prediction, the parameters with
// their uncertainty and correlation, and the sidecar written next to a fitted profile.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/cluster_fit.hpp"

namespace possim::calibrate {

// One object per point: where, what was measured (in its own unit), the prediction, the
// relative error.
nlohmann::json points_json(const std::vector<PointResult>& points);

// Pairs of parameters the points cannot tell apart (|correlation| above 0.95).
std::vector<std::string> confounded(const ClusterFit& f);

// NAME.calibration.json of a fit: method, assumptions, parameters, correlation, points and
// any held-out predictions.
nlohmann::json fit_sidecar(const ClusterFit& f, const std::string& measurements_path, const std::string& engine,
                           const Profile& base, const ClusterAssumptions& cluster, int shards,
                           const std::vector<PointResult>& predicted);

}  // namespace possim::calibrate
