#include "calibrate/cluster_fit.hpp"

#include <cmath>
#include <cstdio>

#include "model/analytic/analytic_engine.hpp"
#include "model/error.hpp"
#include "model/strategy.hpp"

namespace possim::calibrate {

namespace {

std::string fmt(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}

}  // namespace

const std::vector<std::string>& fit_parameter_names() {
  static const std::vector<std::string> n = {"tcp_goodput", "per_message_s", "server_apply_bytes_per_s",
                                             "pcie_bytes_per_s", "compute_scale"};
  return n;
}

void check_fit_parameter(const std::string& name) {
  for (const auto& n : fit_parameter_names())
    if (n == name) return;
  std::string list;
  for (const auto& n : fit_parameter_names()) list += (list.empty() ? "" : ", ") + n;
  throw InputError("--free", "unknown parameter '" + name + "'", "a comma-separated list of " + list);
}

double profile_parameter(const Profile& p, const std::string& name) {
  if (name == "tcp_goodput") return p.tcp_goodput;
  if (name == "per_message_s") return p.per_message_s;
  if (name == "server_apply_bytes_per_s") return p.server_apply_bytes_per_s;
  if (name == "pcie_bytes_per_s") return p.pcie_bytes_per_s;
  if (name == "compute_scale") return 1.0;
  check_fit_parameter(name);
  return 0;
}

Profile with_parameters(const Profile& base, const std::vector<std::string>& names, const std::vector<double>& values) {
  Profile p = base;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double v = values.at(i);
    const std::string& n = names[i];
    if (n == "tcp_goodput") p.tcp_goodput = v;
    else if (n == "per_message_s") p.per_message_s = v;
    else if (n == "server_apply_bytes_per_s") p.server_apply_bytes_per_s = v;
    else if (n == "pcie_bytes_per_s") p.pcie_bytes_per_s = v;
    else if (n == "compute_scale") {
      p.peak_flops_per_s *= v;
      for (auto& m : p.measured)
        for (auto& l : m.layers) {
          l.forward_s /= v;
          l.backward_s /= v;
        }
      for (auto& t : p.throughput) t.images_per_s *= v;
    } else {
      check_fit_parameter(n);
    }
  }
  return p;
}

double predict_iteration_s(const Profile& p, const Network& net, const MeasurementPoint& pt, const ClusterAssumptions& a) {
  PlanRequest r;
  r.net = &net;
  r.profile = &p;
  r.cluster.nodes = pt.nodes;
  r.cluster.gpus_per_node = pt.gpus_per_node;
  r.cluster.nic_gbps = pt.nic_gbps;
  r.cluster.latency_s = a.latency_s;
  r.cluster.server_shards = a.server_shards > 0 ? a.server_shards : pt.nodes;
  r.cluster.placement = ServerPlacement::colocated;
  r.batch_per_gpu = pt.batch;
  r.iterations = a.iterations;
  const SyncPlan plan = make_plan(pt.strategy, r);
  return AnalyticEngine().run(plan, net, RunOptions{}).iteration_s;
}

std::vector<PointResult> predict_points(const Profile& p, const MeasurementSet& m, const ClusterAssumptions& a) {
  std::vector<PointResult> out;
  for (const auto& pt : m.points) {
    PointResult r;
    r.point = pt;
    r.predicted_s = predict_iteration_s(p, m.networks.at(pt.model), pt, a);
    r.residual = r.predicted_s / pt.iteration_s - 1;
    out.push_back(r);
  }
  return out;
}

ClusterFit fit_cluster(const Profile& base, const MeasurementSet& m, const ClusterFitOptions& opt) {
  if (opt.free.empty()) throw InputError("--free", "", "no parameter to fit", "at least one of the fit parameters");
  for (const auto& n : opt.free) check_fit_parameter(n);
  if (m.points.size() < opt.free.size())
    throw InputError(m.path, "", std::to_string(m.points.size()) + " points cannot fit " +
                                     std::to_string(opt.free.size()) + " free parameters",
                     "at least as many points as parameters (more, for uncertainties)");
  ClusterFit fit;
  fit.names = opt.free;
  for (const auto& n : opt.free) {
    auto it = opt.start.find(n);
    const double v = it != opt.start.end() ? it->second : profile_parameter(base, n);
    if (!(v > 0)) throw InputError(base.path, n, "start value " + fmt(v) + " is not positive", "a value > 0");
    fit.start.push_back(v);
  }
  const auto residuals = [&](const std::vector<double>& v) {
    const Profile p = with_parameters(base, fit.names, v);
    std::vector<double> r;
    r.reserve(m.points.size());
    for (const auto& pt : m.points)
      r.push_back(predict_iteration_s(p, m.networks.at(pt.model), pt, opt.cluster) / pt.iteration_s - 1);
    return r;
  };
  fit.lm = levenberg_marquardt(residuals, fit.start, opt.lm);
  fit.values = fit.lm.values;
  fit.sigma = fit.lm.sigma;
  fit.correlation = fit.lm.correlation;

  Profile p = with_parameters(base, fit.names, fit.values);
  fit.points = predict_points(p, m, opt.cluster);
  double ss = 0;
  for (const auto& r : fit.points) ss += r.residual * r.residual;
  fit.rms_residual = std::sqrt(ss / double(fit.points.size()));

  const std::string how = "fitted by possim calibrate fit to " + m.path + " (" + std::to_string(m.points.size()) +
                          " points, " + std::to_string(fit.names.size()) +
                          " free parameters, Levenberg-Marquardt on relative residuals; RMS residual " +
                          fmt(100 * fit.rms_residual) + "%)";
  for (std::size_t i = 0; i < fit.names.size(); ++i) {
    const std::string value = fmt(fit.values[i]) + " +/- " + fmt(fit.sigma[i]) + " (1 sigma)";
    const std::string& n = fit.names[i];
    if (n == "compute_scale") {
      const std::string s = "base profile " + base.name + " x compute_scale " + value + ", " + how;
      p.sources["peak_flops_per_s"] = s;
      if (!p.measured.empty()) p.sources["measured"] = "layer times of base profile " + base.name + " / compute_scale " + value + ", " + how;
      if (!p.throughput.empty()) p.sources["throughput"] = "points of base profile " + base.name + " x compute_scale " + value + ", " + how;
    } else {
      p.sources[n] = value + ", " + how;
    }
  }
  if (p.tcp_goodput > 1) {
    p.sources["tcp_goodput"] = "fit gave " + fmt(p.tcp_goodput) + " > 1 (more than line rate): clamped to 1 in this profile; " + p.sources["tcp_goodput"];
    p.tcp_goodput = 1;
  }
  fit.fitted = p;
  return fit;
}

}  // namespace possim::calibrate
