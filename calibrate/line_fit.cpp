#include "calibrate/line_fit.hpp"

#include <algorithm>
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

LineFit fit_line_trimmed(std::vector<double> x, std::vector<double> y, double cut, int rounds,
                         std::vector<bool>* kept, double min_relative) {
  std::vector<std::size_t> index(x.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = i;
  LineFit f = fit_line(x, y);
  const std::size_t n0 = x.size(), keep_min = std::max<std::size_t>(3, (n0 + 1) / 2);
  for (int round = 0; round < rounds; ++round) {
    std::vector<double> res(x.size()), dev(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) res[i] = y[i] - f.intercept - f.slope * x[i];
    std::vector<double> sorted = res;
    std::nth_element(sorted.begin(), sorted.begin() + long(sorted.size() / 2), sorted.end());
    const double med = sorted[sorted.size() / 2];
    for (std::size_t i = 0; i < res.size(); ++i) dev[i] = std::abs(res[i] - med);
    std::nth_element(dev.begin(), dev.begin() + long(dev.size() / 2), dev.end());
    const double sigma = 1.4826 * dev[dev.size() / 2];
    if (!(sigma > 0)) break;
    std::vector<double> kx, ky;
    std::vector<std::size_t> ki;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (res[i] - med <=
          std::max(cut * sigma, min_relative * std::abs(f.intercept + f.slope * x[i])))
        kx.push_back(x[i]), ky.push_back(y[i]), ki.push_back(index[i]);
    if (kx.size() == x.size() || kx.size() < keep_min) break;
    std::vector<double> distinct = kx;
    std::sort(distinct.begin(), distinct.end());
    if (std::unique(distinct.begin(), distinct.end()) - distinct.begin() < 2) break;
    x.swap(kx);
    y.swap(ky);
    index.swap(ki);
    f = fit_line(x, y);
  }
  f.dropped = int(n0 - x.size());
  if (kept) {
    kept->assign(n0, false);
    for (std::size_t i : index) (*kept)[i] = true;
  }
  return f;
}

LineFit fit_common_slope(const std::vector<std::vector<double>>& x,
                         const std::vector<std::vector<double>>& y) {
  double sxx = 0, sxy = 0, syy = 0, n = 0, intercepts = 0;
  int groups = 0;
  std::vector<std::pair<double, double>> means;
  for (std::size_t g = 0; g < x.size(); ++g) {
    if (x[g].empty()) continue;
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x[g].size(); ++i) mx += x[g][i], my += y[g][i];
    mx /= double(x[g].size());
    my /= double(x[g].size());
    for (std::size_t i = 0; i < x[g].size(); ++i) {
      sxx += (x[g][i] - mx) * (x[g][i] - mx);
      sxy += (x[g][i] - mx) * (y[g][i] - my);
      syy += (y[g][i] - my) * (y[g][i] - my);
    }
    n += double(x[g].size());
    means.emplace_back(mx, my);
    ++groups;
  }
  if (!(sxx > 0)) throw std::invalid_argument("fit_common_slope: no spread in x within any group");
  LineFit f;
  f.points = int(n);
  f.slope = sxy / sxx;
  for (const auto& [mx, my] : means) intercepts += my - f.slope * mx;
  f.intercept = intercepts / groups;
  const double ssr = std::max(0.0, syy - f.slope * sxy);
  f.r2 = syy > 0 ? 1 - ssr / syy : 1;
  if (n > groups + 1) f.slope_se = std::sqrt(ssr / (n - groups - 1) / sxx);
  return f;
}

nlohmann::json to_json(const LineFit& f) {
  nlohmann::json j = {{"intercept_s", f.intercept},
          {"intercept_se_s", f.intercept_se},
          {"seconds_per_byte", f.slope},
          {"seconds_per_byte_se", f.slope_se},
          {"bytes_per_s", f.rate()},
          {"bytes_per_s_se", f.rate_se()},
          {"r2", f.r2},
          {"points", f.points},
          {"outliers_dropped", f.dropped}};
  if (f.clamped_intercept != 0) j["free_intercept_s_clamped_to_0"] = f.clamped_intercept;
  return j;
}

}  // namespace possim::calibrate
