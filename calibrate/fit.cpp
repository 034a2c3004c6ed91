#include "calibrate/fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace possim::calibrate {

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

VectorXd eval(const ResidualFn& f, const VectorXd& phi, int& evaluations) {
  std::vector<double> p(std::size_t(phi.size()));
  for (Eigen::Index i = 0; i < phi.size(); ++i) p[std::size_t(i)] = std::exp(phi[i]);
  const std::vector<double> r = f(p);
  ++evaluations;
  VectorXd v(Eigen::Index(r.size()));
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (!std::isfinite(r[i])) throw std::runtime_error("fit: a residual is not finite");
    v[Eigen::Index(i)] = r[i];
  }
  return v;
}

// Central differences, or forward differences from the residuals r0 at phi.
MatrixXd jacobian(const ResidualFn& f, const VectorXd& phi, const VectorXd* r0, double h,
                  int& evaluations) {
  const Eigen::Index m = r0 ? r0->size() : eval(f, phi, evaluations).size();
  MatrixXd J(m, phi.size());
  for (Eigen::Index j = 0; j < phi.size(); ++j) {
    VectorXd a = phi, b = phi;
    a[j] += h;
    if (r0) {
      J.col(j) = (eval(f, a, evaluations) - *r0) / h;
    } else {
      b[j] -= h;
      J.col(j) = (eval(f, a, evaluations) - eval(f, b, evaluations)) / (2 * h);
    }
  }
  return J;
}

}  // namespace

LmResult levenberg_marquardt(const ResidualFn& f, const std::vector<double>& start,
                             const LmOptions& opt) {
  const Eigen::Index p = Eigen::Index(start.size());
  if (p == 0) throw std::invalid_argument("fit: no free parameters");
  VectorXd phi(p);
  for (Eigen::Index i = 0; i < p; ++i) {
    if (!(start[std::size_t(i)] > 0))
      throw std::invalid_argument("fit: start values must be positive");
    phi[i] = std::log(start[std::size_t(i)]);
  }
  LmResult out;
  VectorXd lo = VectorXd::Constant(p, -std::numeric_limits<double>::infinity());
  VectorXd hi = VectorXd::Constant(p, std::numeric_limits<double>::infinity());
  for (Eigen::Index i = 0; i < p; ++i) {
    if (std::size_t(i) < opt.lower.size() && opt.lower[std::size_t(i)] > 0)
      lo[i] = std::log(opt.lower[std::size_t(i)]);
    if (std::size_t(i) < opt.upper.size() && opt.upper[std::size_t(i)] > 0)
      hi[i] = std::log(opt.upper[std::size_t(i)]);
    if (lo[i] > hi[i]) throw std::invalid_argument("fit: a lower bound is above its upper bound");
    phi[i] = std::clamp(phi[i], lo[i], hi[i]);
  }
  VectorXd r = eval(f, phi, out.evaluations);
  const Eigen::Index m = r.size();
  if (m < p) throw std::invalid_argument("fit: fewer points than free parameters");
  double ssr = r.squaredNorm();
  double lambda = 1e-3;
  for (out.iterations = 0; out.iterations < opt.max_iterations; ++out.iterations) {
    const MatrixXd J =
        jacobian(f, phi, opt.central_differences ? nullptr : &r, opt.log_step, out.evaluations);
    const MatrixXd A = J.transpose() * J;
    const VectorXd g = J.transpose() * r;
    bool improved = false;
    double new_ssr = ssr;
    for (int tries = 0; tries < 30 && !improved; ++tries) {
      MatrixXd Ad = A;
      for (Eigen::Index i = 0; i < p; ++i) Ad(i, i) += lambda * std::max(A(i, i), 1e-12);
      const VectorXd step = Ad.ldlt().solve(-g);
      if (!step.allFinite()) {
        lambda *= 10;
        continue;
      }
      // At most a factor e^5 per step, and never past a bound.
      const VectorXd trial = (phi + step.cwiseMax(-5.0).cwiseMin(5.0)).cwiseMax(lo).cwiseMin(hi);
      if ((trial - phi).norm() == 0) {
        lambda *= 4;
        continue;
      }
      VectorXd rt;
      try {
        rt = eval(f, trial, out.evaluations);
      } catch (const std::runtime_error&) {
        lambda *= 10;
        continue;
      }
      new_ssr = rt.squaredNorm();
      if (new_ssr < ssr) {
        phi = trial;
        r = rt;
        improved = true;
        lambda = std::max(lambda / 3, 1e-12);
      } else {
        lambda *= 4;
      }
    }
    if (!improved) {
      out.converged = true;  // no step lowers the SSR: a (local) minimum
      break;
    }
    const double gain = (ssr - new_ssr) / std::max(ssr, 1e-300);
    ssr = new_ssr;
    if (gain < opt.relative_tolerance || ssr < 1e-30) {
      out.converged = true;
      ++out.iterations;
      break;
    }
  }

  out.values.resize(std::size_t(p));
  out.at_bound.assign(std::size_t(p), 0);
  for (Eigen::Index i = 0; i < p; ++i) {
    out.values[std::size_t(i)] = std::exp(phi[i]);
    if (phi[i] <= lo[i] + 1e-9) out.at_bound[std::size_t(i)] = -1;
    if (phi[i] >= hi[i] - 1e-9) out.at_bound[std::size_t(i)] = 1;
  }
  out.residuals.assign(r.data(), r.data() + m);
  out.ssr = ssr;
  out.residual_variance = m > p ? ssr / double(m - p) : 0;

  // Covariance of the log-parameters from the SVD of J^T J; directions with (near) zero
  // curvature are not identified by the data: parameters along them get infinite sigma.
  const MatrixXd J = jacobian(f, phi, nullptr, opt.covariance_log_step, out.evaluations);
  const Eigen::JacobiSVD<MatrixXd> svd(J.transpose() * J,
                                       Eigen::ComputeFullU | Eigen::ComputeFullV);
  const VectorXd sv = svd.singularValues();
  const double cut = std::max(sv.size() ? sv[0] : 0.0, 1e-300) * 1e-12;
  MatrixXd inv = MatrixXd::Zero(p, p);
  std::vector<bool> unidentified(std::size_t(p), false);
  for (Eigen::Index k = 0; k < sv.size(); ++k) {
    if (sv[k] > cut) {
      inv += svd.matrixV().col(k) * svd.matrixU().col(k).transpose() / sv[k];
    } else {
      for (Eigen::Index i = 0; i < p; ++i)
        if (std::abs(svd.matrixV()(i, k)) > 1e-3) unidentified[std::size_t(i)] = true;
    }
  }
  const MatrixXd cov = inv * out.residual_variance;
  out.sigma.resize(std::size_t(p));
  out.log_covariance.resize(std::size_t(p));  // row by row (GCC 12 misreads assign() of a temporary row)
  for (Eigen::Index i = 0; i < p; ++i)
    for (Eigen::Index j = 0; j < p; ++j) out.log_covariance[std::size_t(i)].push_back(cov(i, j));
  out.correlation.resize(std::size_t(p));
  for (auto& row : out.correlation) row.resize(std::size_t(p), 0.0);
  for (Eigen::Index i = 0; i < p; ++i) {
    out.sigma[std::size_t(i)] =
        unidentified[std::size_t(i)] || out.at_bound[std::size_t(i)] != 0
            ? std::numeric_limits<double>::infinity()
            : out.values[std::size_t(i)] * std::sqrt(std::max(cov(i, i), 0.0));
    for (Eigen::Index j = 0; j < p; ++j) {
      const double d = std::sqrt(std::max(cov(i, i), 0.0) * std::max(cov(j, j), 0.0));
      out.correlation[std::size_t(i)][std::size_t(j)] =
          d > 0 ? cov(i, j) / d : (i == j ? 1.0 : 0.0);
    }
  }
  return out;
}

}  // namespace possim::calibrate
