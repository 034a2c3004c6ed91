#include "calibrate/line_fit.hpp"

#include <cmath>
#include <stdexcept>

namespace possim::calibrate {

LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) throw std::invalid_argument("fit_line: need 2+ points");
  const double n = double(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) throw std::invalid_argument("fit_line: all x values are equal");
  LineFit f;
  f.points = int(x.size());
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  double ssr = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - f.intercept - f.slope * x[i];
    ssr += r * r;
  }
  f.r2 = syy > 0 ? 1 - ssr / syy : 1;
  if (x.size() > 2) {
    const double s2 = ssr / (n - 2);
    f.slope_se = std::sqrt(s2 / sxx);
    f.intercept_se = std::sqrt(s2 * (1 / n + mx * mx / sxx));
  }
  return f;
}

nlohmann::json to_json(const LineFit& f) {
  return {{"intercept_s", f.intercept},
          {"intercept_se_s", f.intercept_se},
          {"seconds_per_byte", f.slope},
          {"seconds_per_byte_se", f.slope_se},
          {"bytes_per_s", f.rate()},
          {"bytes_per_s_se", f.rate_se()},
          {"r2", f.r2},
          {"points", f.points}};
}

}  // namespace possim::calibrate
