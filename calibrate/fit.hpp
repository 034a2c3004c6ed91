// Levenberg-Marquardt least squares over positive parameters, fitted in log space with a
// numeric (central-difference) Jacobian. Uncertainties: covariance = s^2 (J^T J)^-1 at the
// optimum, s^2 = SSR / (points - parameters), mapped back from log space (1-sigma).
#pragma once
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace possim::calibrate {

struct LmOptions {
  int max_iterations = 200;
  double relative_tolerance = 1e-10;  // stop when SSR improves by less than this, relatively
  double log_step = 1e-4;             // finite-difference step in log-parameter space
};

struct LmResult {
  std::vector<double> values;  // fitted parameters (positive)
  std::vector<double> sigma;   // 1-sigma uncertainties; infinity where not identifiable
  std::vector<std::vector<double>> correlation;  // parameter correlation matrix
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
