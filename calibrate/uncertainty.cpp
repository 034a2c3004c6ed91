#include "calibrate/uncertainty.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "calibrate/cluster_fit.hpp"
#include "model/input/error.hpp"
#include "model/input/profile_derive.hpp"

namespace possim::calibrate {

std::string SigmaAxes::method() const {
  std::string names;
  for (const auto& n : parameters) names += (names.empty() ? "" : ", ") + n;
  return "95% intervals: profile " + profile + "'s fit covariance of " + names +
         " (the fitted parameters this scenario reads), propagated by rerunning at +/- 1 sigma along its " +
         std::to_string(steps.size()) + " principal axes with the same engine, up and down deviations in log space added apart; " +
         "parameter uncertainty only, not mechanisms the model lacks";
}

std::vector<std::string> parameters_read(const Scenario& s) {
  std::vector<std::string> out;
  for (const std::string& name : s.profile.fit_covariance.parameters) {
    const auto dot = name.find('.');
    bool read = is_physics_parameter(name);
    for (const auto& [strategy, p] : s.strategy_profiles) {
      if (read) break;
      if (dot != std::string::npos)
        read = p.stack == name.substr(0, dot);
      else
        read = p.stack.empty() || !s.profile.stacks.at(p.stack).params.count(name);
    }
    if (read) out.push_back(name);
  }
  return out;
}

SigmaAxes sigma_axes(const Scenario& s) { return sigma_axes(s.profile, parameters_read(s)); }

SigmaAxes sigma_axes(const Profile& p, const std::vector<std::string>& parameters) {
  SigmaAxes axes;
  axes.profile = p.name;
  const FitCovariance& c = p.fit_covariance;
  axes.parameters = parameters;
  const Eigen::Index k = Eigen::Index(axes.parameters.size());
  if (k == 0) return axes;
  std::vector<std::size_t> at;  // index of each read parameter in the covariance
  for (const auto& n : axes.parameters)
    at.push_back(std::size_t(std::find(c.parameters.begin(), c.parameters.end(), n) - c.parameters.begin()));
  Eigen::MatrixXd m(k, k);
  for (Eigen::Index i = 0; i < k; ++i)
    for (Eigen::Index j = 0; j < k; ++j) m(i, j) = c.log_covariance[at[std::size_t(i)]][at[std::size_t(j)]];
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(m);
  const Eigen::VectorXd lambda = eig.eigenvalues();  // ascending
  const double largest = std::max(lambda[k - 1], 0.0);
  // Rounding leaves a singular covariance's zero eigenvalues at about -1e-16 of the largest.
  if (lambda[0] < -1e-9 * std::max(largest, 1e-300))
    throw InputError(p.path, "fit_covariance.log_covariance",
                     "is not a covariance: it has a negative eigenvalue (" + std::to_string(lambda[0]) + ")",
                     "a positive semi-definite matrix, as possim calibrate fit writes");
  for (Eigen::Index a = k - 1; a >= 0; --a) {
    if (lambda[a] <= 1e-12 * largest || lambda[a] <= 0) continue;  // no spread along this axis
    std::vector<double> step;
    for (Eigen::Index i = 0; i < k; ++i) step.push_back(std::sqrt(lambda[a]) * eig.eigenvectors()(i, a));
    axes.steps.push_back(std::move(step));
  }
  return axes;
}

Profile perturbed(const Profile& p, const std::vector<std::string>& parameters, const std::vector<double>& log_step) {
  std::vector<double> values;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const auto [lo, hi] = parameter_range(p, parameters[i]);
    // A relative parameter moves from 1; the rest are the profile's values, kept in range.
    const double v = profile_parameter(p, parameters[i]) * std::exp(log_step.at(i));
    values.push_back(is_relative_parameter(parameters[i]) ? v : std::clamp(v, lo, hi));
  }
  return with_parameters(p, parameters, values);
}

Scenario perturbed(const Scenario& s, const std::vector<std::string>& parameters, const std::vector<double>& log_step) {
  return with_profile(s, perturbed(s.profile, parameters, log_step));
}

std::pair<double, double> interval_of(double central, const std::vector<double>& plus, const std::vector<double>& minus) {
  // Each axis moves the figure up on one side and down on the other (or, across a kink
  // such as a resource that stops binding, one way only): the upward and downward log
  // deviations add in quadrature separately.
  double up = 0, down = 0;
  if (central > 0)
    for (std::size_t a = 0; a < plus.size(); ++a) {
      if (!(plus[a] > 0 && minus[a] > 0)) continue;
      const double p = std::log(plus[a] / central), m = std::log(minus[a] / central);
      const double u = std::max({p, m, 0.0}), d = std::max({-p, -m, 0.0});
      up += u * u;
      down += d * d;
    }
  return {central * std::exp(-kIntervalZ * std::sqrt(down)), central * std::exp(kIntervalZ * std::sqrt(up))};
}

void attach_intervals(std::vector<Result>& central, const std::vector<std::vector<Result>>& plus,
                      const std::vector<std::vector<Result>>& minus) {
  for (std::size_t i = 0; i < central.size(); ++i) {
    Result& r = central[i];
    if (r.partial() || !(r.iteration_s > 0)) continue;
    std::vector<double> it_p, it_m, im_p, im_m, sp_p, sp_m;
    bool complete = true, same_gpu = true, same_reference = true;
    for (std::size_t a = 0; a < plus.size(); ++a) {
      if (i >= plus[a].size() || i >= minus[a].size() || plus[a][i].partial() || minus[a][i].partial()) {
        complete = false;
        break;
      }
      it_p.push_back(plus[a][i].iteration_s), it_m.push_back(minus[a][i].iteration_s);
      im_p.push_back(plus[a][i].images_per_s), im_m.push_back(minus[a][i].images_per_s);
      sp_p.push_back(plus[a][i].speedup), sp_m.push_back(minus[a][i].speedup);
      for (const Result* x : {&plus[a][i], &minus[a][i]}) {
        same_gpu = same_gpu && std::fabs(x->gpu_busy_s - r.gpu_busy_s) <= 1e-9 * r.gpu_busy_s;
        same_reference = same_reference && x->single_gpu_images_per_s == r.single_gpu_images_per_s;
      }
    }
    if (!complete) continue;
    Result::Interval v;
    std::tie(v.iteration_s_lo, v.iteration_s_hi) = interval_of(r.iteration_s, it_p, it_m);
    std::tie(v.images_per_s_lo, v.images_per_s_hi) = interval_of(r.images_per_s, im_p, im_m);
    std::tie(v.speedup_lo, v.speedup_hi) = interval_of(r.speedup, sp_p, sp_m);
    // The bounds extrapolate each axis's deviation to 1.96 sigma in log space; past a kink
    // (the network hidden behind the compute) that would run faster than the GPU's own
    // work. Where no fitted parameter moves that work (every rerun's GPU busy time is the
    // central one's), the iteration is at least that long: a floor, and its rates a ceiling.
    const double floor_s = r.gpu_busy_s;
    if (same_gpu && floor_s > 0 && v.iteration_s_lo < floor_s && floor_s <= r.iteration_s) {
      const double k = r.iteration_s / floor_s;  // the rates' factor at the floor
      v.iteration_s_lo = floor_s;
      v.images_per_s_hi = std::min(v.images_per_s_hi, r.images_per_s * k);
      if (same_reference) v.speedup_hi = std::min(v.speedup_hi, r.speedup * k);
    }
    r.interval = v;
  }
}

std::string no_covariance_note(const Profile& p) {
  return "no interval: profile " + p.name + " carries no fit covariance" +
         (!derived_from(p).empty() ? " (derived by possim profile derive: its roofline compute has no error bar of its own, so it "
                    "keeps none of its base's)"
                  : "") +
         "; possim calibrate fit to measured points of this GPU gives one";
}

}  // namespace possim::calibrate
