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
  int points = 0;
  // For x = bytes, y = seconds: bytes/s and its 1-sigma uncertainty.
  double rate() const { return slope > 0 ? 1.0 / slope : 0; }
  double rate_se() const { return slope > 0 ? slope_se / (slope * slope) : 0; }
};

// Throws std::invalid_argument with fewer than 2 points or no spread in x.
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

nlohmann::json to_json(const LineFit& f);

}  // namespace possim::calibrate
