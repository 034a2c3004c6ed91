#include "kernels/timing.hpp"

#include <algorithm>
#include <stdexcept>

#include "model/input/error.hpp"

namespace possim::calibrate {

double median(std::vector<double> v) {
  if (v.empty()) throw std::logic_error("median of nothing");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

KernelTime summarize(const std::string& kernel, std::vector<double> seconds,
                     const std::string& algorithm, double flops) {
  KernelTime t;
  t.kernel = kernel;
  t.algorithm = algorithm;
  t.flops = flops;
  t.repeats = int(seconds.size());
  t.min_s = *std::min_element(seconds.begin(), seconds.end());
  t.max_s = *std::max_element(seconds.begin(), seconds.end());
  t.median_s = median(std::move(seconds));
  return t;
}

double LayerMeasurement::forward_s() const {
  double s = 0;
  for (const auto& k : forward) s += k.median_s;
  return s;
}
double LayerMeasurement::backward_s() const {
  double s = 0;
  for (const auto& k : backward) s += k.median_s;
  return s;
}

const char* to_string(Precision p) {
  switch (p) {
    case Precision::fp32:
      return "fp32";
    case Precision::tf32:
      return "tf32";
    case Precision::bf16:
      return "bf16";
  }
  return "?";
}

Precision precision_from_string(const std::string& s) {
  if (s == "fp32") return Precision::fp32;
  if (s == "tf32") return Precision::tf32;
  if (s == "bf16") return Precision::bf16;
  throw InputError("--precision", "unknown precision '" + s + "'", "fp32, tf32 or bf16");
}

}  // namespace possim::calibrate
