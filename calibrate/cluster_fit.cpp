#include "calibrate/cluster_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

#include "calibrate/profile_json.hpp"
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

// What possim's profile reader says of p, or "" when it would load it.
std::string load_problem(const Profile& p) {
  try {
    parse_profile(profile_to_json(p).dump(), "the fitted profile");
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

// A fit whose values make a profile possim rejects (compute_scale pushing a throughput
// point past per_iteration_s, layer times past their bound) failed: say which parameter.
void check_loadable(const Profile& base, const ClusterFit& f) {
  const std::string problem = load_problem(f.fitted);
  if (problem.empty()) return;
  std::string culprits;
  for (std::size_t i = 0; i < f.names.size(); ++i)
    if (!load_problem(with_parameters(base, {f.names[i]}, {f.values[i]})).empty())
      culprits += (culprits.empty() ? "" : ", ") + f.names[i] + " = " + fmt(f.values[i]);
  throw std::runtime_error("fit failed: " + (culprits.empty() ? "the fitted values together" : culprits) +
                           " would make a profile possim rejects (" + problem +
                           "); leave it out of --free, give its --start, or fit to other points");
}

}  // namespace

const std::vector<std::string>& fit_parameter_names() {
  static const std::vector<std::string> n = {"tcp_goodput", "per_message_s",
                                             "server_apply_bytes_per_s", "pcie_bytes_per_s",
                                             "compute_scale"};
  return n;
}

void check_fit_parameter(const std::string& name) {
  for (const auto& n : fit_parameter_names())
    if (n == name) return;
  std::string list;
  for (const auto& n : fit_parameter_names()) list += (list.empty() ? "" : ", ") + n;
  throw InputError("--free", "unknown parameter '" + name + "'",
                   "a comma-separated list of " + list);
}

std::pair<double, double> parameter_range(const std::string& name) {
  if (name == "tcp_goodput") return {0.01, 1.0};  // a fraction of line rate
  if (name == "per_message_s") return {1e-9, 1.0};
  if (name == "server_apply_bytes_per_s") return {1e6, 1e13};
  if (name == "pcie_bytes_per_s") return {1e7, 1e12};  // beyond any PCIe or NVLink-C2C link
  if (name == "compute_scale") return {1e-3, 1e3};
  check_fit_parameter(name);
  return {0, 0};
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

Profile with_parameters(const Profile& base, const std::vector<std::string>& names,
                        const std::vector<double>& values) {
  Profile p = base;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double v = values.at(i);
    const std::string& n = names[i];
    if (n == "tcp_goodput")
      p.tcp_goodput = v;
    else if (n == "per_message_s")
      p.per_message_s = v;
    else if (n == "server_apply_bytes_per_s")
      p.server_apply_bytes_per_s = v;
    else if (n == "pcie_bytes_per_s")
      p.pcie_bytes_per_s = v;
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

double predict_iteration_s(const Profile& p, const Network& net, const MeasurementPoint& pt,
                           const ClusterAssumptions& a) {
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

std::vector<PointResult> predict_points(const Profile& p, const MeasurementSet& m,
                                        const ClusterAssumptions& a) {
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
  if (opt.free.empty())
    throw InputError("--free", "", "no parameter to fit", "at least one of the fit parameters");
  for (std::size_t i = 0; i < opt.free.size(); ++i) {
    check_fit_parameter(opt.free[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (opt.free[j] == opt.free[i])
        throw InputError("--free", "", "'" + opt.free[i] + "' is listed twice", "each parameter once");
  }
  if (m.points.size() < opt.free.size())
    throw InputError(m.path, "",
                     std::to_string(m.points.size()) + " points cannot fit " +
                         std::to_string(opt.free.size()) + " free parameters",
                     "at least as many points as parameters (more, for uncertainties)");
  ClusterFit fit;
  fit.names = opt.free;
  for (const auto& n : opt.free) {
    auto it = opt.start.find(n);
    const double v = it != opt.start.end() ? it->second : profile_parameter(base, n);
    if (!(v > 0))
      throw InputError(base.path, n, "start value " + fmt(v) + " is not positive", "a value > 0");
    fit.start.push_back(v);
  }
  const int threads = std::max(1, std::min<int>(opt.threads, int(m.points.size())));
  const auto residuals = [&](const std::vector<double>& v) {
    const Profile p = with_parameters(base, fit.names, v);
    std::vector<double> r(m.points.size());
    const auto work = [&](std::size_t first, std::size_t step) {
      for (std::size_t i = first; i < m.points.size(); i += step) {
        const MeasurementPoint& pt = m.points[i];
        r[i] =
            predict_iteration_s(p, m.networks.at(pt.model), pt, opt.cluster) / pt.iteration_s - 1;
      }
    };
    std::vector<std::thread> pool;
    std::exception_ptr error;
    std::mutex error_mu;
    for (int t = 1; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          work(std::size_t(t), std::size_t(threads));
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mu);
          error = std::current_exception();
        }
      });
    try {
      work(0, std::size_t(threads));
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mu);
      error = std::current_exception();
    }
    for (auto& th : pool) th.join();
    if (error) std::rethrow_exception(error);
    return r;
  };
  // Physical ranges: a parameter the points do not limit stops at one and is reported so.
  LmOptions lm = opt.lm;
  lm.lower.clear();
  lm.upper.clear();
  for (const auto& n : fit.names) {
    const auto [lo, hi] = parameter_range(n);
    lm.lower.push_back(lo);
    lm.upper.push_back(hi);
  }
  for (std::size_t i = 0; i < fit.start.size(); ++i)
    fit.start[i] = std::clamp(fit.start[i], lm.lower[i], lm.upper[i]);
  // Deterministic multi-start (see ClusterFitOptions::restarts).
  std::mt19937_64 rng(20170712);
  const auto uniform = [&rng] { return double(rng() >> 11) * 0x1.0p-53; };
  for (int k = 0; k <= std::max(0, opt.restarts); ++k) {
    std::vector<double> s0 = fit.start;
    if (k > 0)
      for (double& v : s0) v *= std::exp((2 * uniform() - 1) * std::log(std::max(opt.spread, 1.0)));
    LmResult r;
    try {
      r = levenberg_marquardt(residuals, s0, lm);
    } catch (const std::runtime_error&) {
      continue;  // a start where the model cannot be evaluated
    }
    ++fit.starts_tried;
    if (fit.starts_tried == 1 || r.ssr < fit.lm.ssr) {
      fit.lm = std::move(r);
      fit.best_start = k;
    }
  }
  if (fit.starts_tried == 0)
    throw std::runtime_error("fit: the model could not be evaluated from any start");
  fit.values = fit.lm.values;
  fit.sigma = fit.lm.sigma;
  fit.correlation = fit.lm.correlation;

  Profile p = with_parameters(base, fit.names, fit.values);
  fit.points = predict_points(p, m, opt.cluster);
  double ss = 0;
  for (const auto& r : fit.points) ss += r.residual * r.residual;
  fit.rms_residual = std::sqrt(ss / double(fit.points.size()));

  const std::string how = "fitted by possim calibrate fit to " + m.path + " (" +
                          std::to_string(m.points.size()) + " points, " +
                          std::to_string(fit.names.size()) +
                          " free parameters, Levenberg-Marquardt on relative residuals, best of " +
                          std::to_string(fit.starts_tried) + " starts; RMS residual " +
                          fmt(100 * fit.rms_residual) + "%)";
  for (std::size_t i = 0; i < fit.names.size(); ++i) {
    const int b = fit.lm.at_bound.at(i);
    const std::string value = b != 0
                                  ? fmt(fit.values[i]) + " (at the " + (b < 0 ? "lower" : "upper") +
                                        " end of its range: not determined by these points)"
                                  : fmt(fit.values[i]) + " +/- " + fmt(fit.sigma[i]) + " (1 sigma)";
    const std::string& n = fit.names[i];
    if (n == "compute_scale") {
      const std::string s = "base profile " + base.name + " x compute_scale " + value + ", " + how;
      p.sources["peak_flops_per_s"] = s;
      if (!p.measured.empty())
        p.sources["measured"] =
            "layer times of base profile " + base.name + " / compute_scale " + value + ", " + how;
      if (!p.throughput.empty())
        p.sources["throughput"] =
            "points of base profile " + base.name + " x compute_scale " + value + ", " + how;
    } else {
      p.sources[n] = value + ", " + how;
    }
  }
  fit.fitted = p;
  check_loadable(base, fit);
  return fit;
}

}  // namespace possim::calibrate
