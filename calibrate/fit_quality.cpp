#include "calibrate/fit_quality.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "calibrate/exchange/exchange.hpp"
#include "calibrate/kernels.hpp"

namespace possim::calibrate {

namespace {

std::string g(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The end of a parameter's range where its mechanism costs nothing: a cost's lower end, a
// rate's upper end (-1 lower, +1 upper, 0 neither: a share or a factor has no such end).
int free_end(const std::string& name) {
  const std::string n = name.substr(name.find('.') == std::string::npos ? 0 : name.find('.') + 1);
  if (ends_with(n, "_bytes_per_s")) return +1;
  if (ends_with(n, "_s")) return -1;
  return 0;
}

}  // namespace

std::string FitVerdict::summary() const {
  std::string s;
  for (const auto& p : problems) s += (s.empty() ? "" : "; ") + p;
  if (s.size() > 600) s = s.substr(0, 597) + "...";  // sources are bounded; problems are ASCII
  return s;
}

FitVerdict judge_cluster_fit(const ClusterFit& f) {
  FitVerdict v;
  if (f.rms_residual > kMaxRmsRelativeResidual)
    v.problems.push_back("RMS relative residual " + g(100 * f.rms_residual) + "% is above " +
                         g(100 * kMaxRmsRelativeResidual) +
                         "%: no values of the free parameters match these points (points that contradict "
                         "each other, or a mechanism the model lacks)");
  for (std::size_t i = 0; i < f.names.size() && i < f.lm.at_bound.size(); ++i) {
    const int b = f.lm.at_bound[i];
    if (b == 0 || b == free_end(f.names[i])) continue;
    const auto [lo, hi] = f.range(i);
    v.problems.push_back(f.names[i] + " = " + g(f.values.at(i)) + " is stuck at the " +
                         (b < 0 ? "lower" : "upper") + " end of its physical range [" + g(lo) + ", " + g(hi) +
                         "]: the points ask for a value no such mechanism has");
  }
  return v;
}

void judge_line(const LineFit& f, const std::string& what, bool negative_intercept_explained, FitVerdict& v) {
  if (f.r2 < kMinLineR2)
    v.problems.push_back(what + ": R^2 " + g(f.r2) + " is below " + g(kMinLineR2) +
                         ": the times do not follow fixed cost + bytes / bandwidth, so the slope is no bandwidth");
  if (!negative_intercept_explained && f.intercept < 0 && -f.intercept > kNegativeInterceptSigmas * f.intercept_se)
    v.problems.push_back(what + ": intercept " + g(f.intercept * 1e6) + " us is a negative fixed cost (more than " +
                         g(kNegativeInterceptSigmas) + " standard errors below 0), which no message has");
}

FitVerdict judge_exchange(const exchange::ExchangeResult& r) {
  FitVerdict v;
  const bool shaped = r.mode == "netns";
  for (const auto& pf : r.paths) judge_line(pf.fit, "path " + pf.path, shaped, v);
  return v;
}

FitVerdict judge_copy_fit(const KernelCalibration& c) {
  FitVerdict v;
  if (c.copy_fit_ok && c.copies_cross_a_bus) judge_line(c.copy_fit, "pinned host<->device copies", false, v);
  return v;
}

LineFit fit_line_nonnegative(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit f = fit_line(x, y);
  if (f.intercept >= 0) return f;
  // Through the origin: slope = sum(xy) / sum(xx); R^2 against the mean, as the free line's.
  double sxx = 0, sxy = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sxx += x[i] * x[i], sxy += x[i] * y[i], my += y[i];
  my /= double(y.size());
  LineFit o;
  o.points = f.points;
  o.slope = sxy / sxx;
  o.clamped_intercept = f.intercept;
  double ssr = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - o.slope * x[i];
    ssr += r * r;
    syy += (y[i] - my) * (y[i] - my);
  }
  o.r2 = syy > 0 ? 1 - ssr / syy : 1;
  if (x.size() > 1) o.slope_se = std::sqrt(ssr / double(x.size() - 1) / sxx);
  return o;
}

std::string accepted_poor_note(const FitVerdict& v) {
  return "ACCEPTED AS A POOR FIT (--accept-poor-fit): " + v.summary();
}

}  // namespace possim::calibrate
