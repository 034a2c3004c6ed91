// A prediction's error bar: the fitted profile's covariance (Profile::fit_covariance)
// propagated through the engine that predicts.
//
// Method (sigma points, linearised in log space): of the fitted parameters, keep the k the
// scenario reads; step each principal axis of their log-covariance by +/- one standard
// deviation (2k reruns of the scenario with the same engine). Each axis moves a figure f up
// by u_a = max(ln f+/f, ln f-/f, 0) and down by d_a = max(ln f/f+, ln f/f-, 0); the 95%
// interval is [f exp(-1.96 sqrt(sum d_a^2)), f exp(1.96 sqrt(sum u_a^2))]: exact for a figure
// log-linear in the parameters, and one-sided where a kink of the piecewise-linear model
// lets a parameter move it one way only (a GPU-bound point is never faster than its
// compute). The interval holds the fit's parameter uncertainty (which includes the scatter
// of its points, s^2), not mechanisms the model lacks.
#pragma once
#include <string>
#include <vector>

#include "model/input/scenario.hpp"
#include "model/run/result.hpp"

namespace possim::calibrate {

constexpr double kIntervalZ = 1.96;  // two-sided 95% of a normal distribution

// The sigma points of one scenario.
struct SigmaAxes {
  std::vector<std::string> parameters;  // the fitted parameters the scenario reads
  // One row per principal axis: the +1 standard deviation step of each parameter's log.
  std::vector<std::vector<double>> steps;
  std::string profile;  // the profile whose covariance it is
  bool empty() const { return steps.empty(); }
  std::size_t reruns() const { return 2 * steps.size(); }
  // Axis a's step, times `sign` (+1 or -1).
  std::vector<double> step(std::size_t a, double sign) const {
    std::vector<double> out;
    for (double x : steps.at(a)) out.push_back(sign * x);
    return out;
  }
  std::string method() const;  // one line for a run's output and results.json
};

// The fitted parameters that a run of `s` reads: the physics always; a stack's parameter
// ("STACK.P") where a strategy (or the single-GPU reference) runs on that stack; a top-level
// software parameter where one runs on no stack or on a stack that leaves it to the profile.
std::vector<std::string> parameters_read(const Scenario& s);

// The axes of s.profile's covariance restricted to parameters_read(s); empty when the
// profile has none. Throws InputError naming the profile's fit_covariance when it is not
// a covariance (a negative eigenvalue).
SigmaAxes sigma_axes(const Scenario& s);
// The same for a profile and a subset of its covariance's parameters.
SigmaAxes sigma_axes(const Profile& p, const std::vector<std::string>& parameters);

// Why a run on `p`, which has no fit covariance, prints no interval: one line naming the
// profile and what would give one (a derived profile drops its base's on purpose).
std::string no_covariance_note(const Profile& p);

// `s` with each parameter's value multiplied by exp(log_step[i]), kept inside its physical
// range (calibrate::parameter_range).
Scenario perturbed(const Scenario& s, const std::vector<std::string>& parameters, const std::vector<double>& log_step);
Profile perturbed(const Profile& p, const std::vector<std::string>& parameters, const std::vector<double>& log_step);

// Sets each central result's interval from the reruns (plus[a][i], minus[a][i]: axis a,
// the same point i as central[i]). Results the reruns lack (a partial run) get none.
void attach_intervals(std::vector<Result>& central, const std::vector<std::vector<Result>>& plus,
                      const std::vector<std::vector<Result>>& minus);

// 95% interval of a positive figure from its values at the sigma points: {lo, hi}.
std::pair<double, double> interval_of(double central, const std::vector<double>& plus, const std::vector<double>& minus);

}  // namespace possim::calibrate
