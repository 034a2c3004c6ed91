// Levenberg-Marquardt least squares over positive parameters, fitted in log space with a
// numeric (finite-difference) Jacobian. Uncertainties: covariance = s^2 (J^T J)^-1 at the
// optimum, s^2 = SSR / (points - parameters), mapped back from log space (1-sigma).
#pragma once
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace possim::calibrate {

struct LmOptions {
  int max_iterations = 200;
  double relative_tolerance = 1e-6;  // stop when SSR improves by less than this, relatively
  double log_step = 1e-4;            // finite-difference step in log-parameter space
  // Jacobian during the search: forward differences (p evaluations) unless central (2p);
  // the covariance at the optimum always uses central differences.
  bool central_differences = false;
  // Step for the covariance Jacobian. The model is piecewise linear: a step of about 1%
  // measures the slope across the kinks near the optimum rather than at one side of one.
  double covariance_log_step = 1e-1;
  // Optional bounds per parameter (empty: none). A parameter that ends on a bound is not
  // determined by the data: its sigma is infinite and at_bound says which side.
  std::vector<double> lower, upper;
};

struct LmResult {
  std::vector<double> values;  // fitted parameters (positive)
  std::vector<double> sigma;   // 1-sigma uncertainties; infinity where not identifiable
  std::vector<std::vector<double>> correlation;  // parameter correlation matrix
  std::vector<int> at_bound;                     // -1 lower, +1 upper, 0 inside
  // Covariance of the log-parameters, s^2 (J^T J)^+ ([i][j]); meaningful for the parameters
  // with a finite sigma.
  std::vector<std::vector<double>> log_covariance;
  std::vector<double> residuals;
  double ssr = 0;
  double residual_variance = 0;  // s^2; 0 when points == parameters
  int iterations = 0;
  int evaluations = 0;
  bool converged = false;
};

// residuals(params) -> one residual per point. All start values must be > 0.
using ResidualFn = std::function<std::vector<double>(const std::vector<double>&)>;
LmResult levenberg_marquardt(const ResidualFn& residuals, const std::vector<double>& start,
                             const LmOptions& opt = {});

}  // namespace possim::calibrate
