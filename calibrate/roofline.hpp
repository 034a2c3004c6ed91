// `possim calibrate roofline`: a device's two ceilings, measured (METHOD of every roofline:
// a large matrix product through the vendor's library, and a large copy within device
// memory counting the bytes read and written). What a profile derived from a datasheet
// (`possim profile derive`) assumes, set beside what the device does.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/kernel_backend.hpp"

namespace possim::calibrate {

struct RooflineOptions {
  std::string backend = "cpu";
  std::vector<Precision> precisions = {Precision::fp32};
  long long gemm_size = 4096;   // m = n = k of the square GEMM
  double copy_bytes = 1 << 28;  // one device-to-device copy
  TimingPolicy timing{2, 10};
};

struct GemmCeiling {
  Precision precision = Precision::fp32;
  KernelTime time;
  double flops_per_s() const { return time.median_s > 0 ? time.flops / time.median_s : 0; }
};

struct Roofline {
  std::string device;
  nlohmann::json backend_info;  // per precision's backend: libraries, math mode
  std::vector<GemmCeiling> gemm;
  double copy_bytes = 0;
  KernelTime copy;
  // Bytes read plus bytes written per second.
  double copy_bytes_per_s() const { return copy.median_s > 0 ? 2 * copy_bytes / copy.median_s : 0; }
};

// Throws BackendUnavailable where the backend cannot run, InputError for a precision it
// does not do.
Roofline measure_roofline(const RooflineOptions& opt);

nlohmann::json roofline_json(const Roofline& r, const RooflineOptions& opt);

}  // namespace possim::calibrate
