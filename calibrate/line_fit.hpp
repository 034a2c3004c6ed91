// Ordinary least squares of y = a + b x, with standard errors: the latency + bytes/bandwidth
// model of a copy curve or of a network path.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

namespace possim::calibrate {

struct LineFit {
  double intercept = 0, slope = 0;        // y = intercept + slope x
  double intercept_se = 0, slope_se = 0;  // 1-sigma standard errors
  double r2 = 0;
  int points = 0;   // points in the fit
  int dropped = 0;  // outliers left out (fit_line_trimmed)
  // fit_line_nonnegative: the free line's negative intercept, clamped to 0 (0: none clamped).
  double clamped_intercept = 0;
  // For x = bytes, y = seconds: bytes/s and its 1-sigma uncertainty.
  double rate() const { return slope > 0 ? 1.0 / slope : 0; }
  double rate_se() const { return slope > 0 ? slope_se / (slope * slope) : 0; }
};

// Throws std::invalid_argument with fewer than 2 points or no spread in x.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

// OLS, then up to `rounds` times: drop the points lying more than `cut` robust standard
// deviations (1.4826 x median absolute deviation of the residuals) and more than
// `min_relative` of the fitted value ABOVE the line, and refit. Timed messages have one-sided
// outliers: a process descheduled mid-message only ever makes it slower. At least half the points
// (and 3) are always kept. kept (if given) gets one flag per input point.
LineFit fit_line_trimmed(std::vector<double> x, std::vector<double> y, double cut = 4.0,
                         int rounds = 3, std::vector<bool>* kept = nullptr,
                         double min_relative = 0.02);

// One slope shared by several groups, each with its own intercept (x and y centred within
// each group): the bandwidth common to paths whose fixed costs differ. The intercept
// reported is the groups' mean; r2 is of the centred data.
LineFit fit_common_slope(const std::vector<std::vector<double>>& x,
                         const std::vector<std::vector<double>>& y);

nlohmann::json to_json(const LineFit& f);

}  // namespace possim::calibrate
