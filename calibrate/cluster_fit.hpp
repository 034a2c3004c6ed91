// `possim calibrate fit`: fit a profile's free parameters to measured iteration times by
// least squares on relative residuals (predicted / measured - 1), predicting each point
// with the engine that `possim run` predicts with (SimGrid by default; the analytic engine
// on request). The fitted profile then predicts points outside the fit.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "calibrate/fit.hpp"
#include "model/input/measurements.hpp"
#include "model/run/engine.hpp"
#include "model/input/profile.hpp"

namespace possim::calibrate {

// The parameters a fit may free. The node's physics:
//   tcp_goodput, tcp_host_bytes_per_s, pcie_bytes_per_s, compute_scale,
// and the software parameters (stack_parameter_names(): server_apply_bytes_per_s,
// per_message_s, ...), either the profile's top-level value ("per_message_s") or one
// stack's ("caffe_ps.server_per_peer_s"; the stack must exist in the base profile).
// compute_scale multiplies the base profile's compute speed (peak FLOP/s, measured layer
// times and throughput points together); 1 is the base.
// The names: possim::fit_parameter_names() (model/input/profile.hpp).
// The default --free: the physics and the top-level software parameters of the old format.
const std::vector<std::string>& default_fit_parameters();
// Throws InputError naming --free for an unknown name.
void check_fit_parameter(const std::string& name);
void check_fit_parameter(const Profile& base, const std::string& name);
// Factors on the base profile's compute (compute_scale, tensor_core_scale, tf32_scale,
// memory_bound_scale): their value in a profile is 1, and a fit or a perturbation multiplies.
bool is_relative_parameter(const std::string& name);
double profile_parameter(const Profile& p, const std::string& name);  // a relative parameter: 1
// The mechanism a parameter stands for, one short phrase (README's table): the head of a
// fitted parameter's source, which is written whole.
std::string parameter_mechanism(const std::string& name);
// The source notes a fitted parameter writes in p (compute_scale: the compute's three).
std::vector<std::string*> parameter_sources(Profile& p, const std::string& name);
// The physical range a fit keeps each parameter in (tcp_goodput at most 1, ...).
std::pair<double, double> parameter_range(const std::string& name);
// The same for a fit of profile p: compute_scale stops where its fastest kind would pass
// the datasheet's peak (1 / the largest kind efficiency).
std::pair<double, double> parameter_range(const Profile& p, const std::string& name);
// Every parameter --free takes, one per line: its name, unit, physical range and mechanism
// (calibrate fit --help).
std::string fit_parameter_table();
// `base` with the named parameters set (compute_scale applied relative to base).
Profile with_parameters(const Profile& base, const std::vector<std::string>& names,
                        const std::vector<double>& values);

// How a measurement point becomes a cluster (the fields a measurement file does not give).
struct ClusterAssumptions {
  double latency_s = 50e-6;  // one-way latency between nodes
  int server_shards = 0;     // 0: one shard per node, colocated
  int iterations = 5;
};

// Predicted seconds per iteration of a point with `engine` (the point's stack applied).
double predict_iteration_s(const Profile& p, const Network& net, const MeasurementPoint& pt,
                           const ClusterAssumptions& a, const Engine& engine);
// Progress of a fit or prediction: evaluations of the whole point set so far.
using FitProgress = std::function<void(int evaluations, double ssr)>;

struct ClusterFitOptions {
  std::vector<std::string> free = default_fit_parameters();
  const Engine* engine = nullptr;  // nullptr: the analytic engine
  // With a slow engine (SimGrid), first fit with the analytic engine from every start, then
  // refine the best with `engine` from there (Levenberg-Marquardt, no restarts).
  bool analytic_first = true;
  FitProgress progress;
  ClusterAssumptions cluster;
  LmOptions lm;
  // Start values (by name); absent ones start from the base profile.
  std::map<std::string, double> start;
  // The model is piecewise linear (resources serialize; the busiest one wins), so least
  // squares has local minima: also start from `restarts` points spread log-uniformly
  // within a factor `spread` of the start (seeded: the same input gives the same fit),
  // and keep the lowest sum of squares.
  int restarts = 8;
  double spread = 3.0;
  int threads = 2;  // points are predicted in parallel (SimGrid: one process each)
};

struct PointResult {
  MeasurementPoint point;
  double predicted_s = 0;
  double residual = 0;  // predicted / measured - 1, in the unit the point was measured in
};

struct ClusterFit {
  std::vector<std::string> names;
  std::vector<double> start, values, sigma;
  // parameter_range(base, name), by name (empty: parameter_range(name)); read through range().
  std::vector<std::pair<double, double>> ranges;
  std::vector<std::vector<double>> correlation;
  std::vector<PointResult> points;
  double rms_residual = 0;
  LmResult lm;
  int starts_tried = 0;
  int best_start = 0;  // 0: the given start
  Profile fitted;      // base with the fitted values; sources say so
  std::pair<double, double> range(std::size_t i) const {
    return i < ranges.size() ? ranges[i] : parameter_range(names.at(i));
  }
};

// The fitted profile's covariance: this fit's determined parameters (finite sigma, inside
// their range, more points than parameters) and the base's block for those it did not free
// (of the stacks the base has).
FitCovariance merged_covariance(const Profile& base, const ClusterFit& fit, const std::string& points_path,
                                const std::string& engine);

// Throws InputError when there are fewer points than free parameters.
ClusterFit fit_cluster(const Profile& base, const MeasurementSet& m, const ClusterFitOptions& opt);

// Predictions of a profile for points (no fitting), e.g. held-out points. `progress` is
// called with the points done so far as each finishes (one call at a time).
std::vector<PointResult> predict_points(const Profile& p, const MeasurementSet& m,
                                        const ClusterAssumptions& a, const Engine& engine,
                                        int threads = 1,
                                        const std::function<void(std::size_t done)>& progress = {});

// Relative error of a prediction in the unit the point was measured in.
double relative_error(const MeasurementPoint& pt, double predicted_iteration_s);

}  // namespace possim::calibrate
