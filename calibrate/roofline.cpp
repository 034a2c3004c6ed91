#include "calibrate/roofline.hpp"

namespace possim::calibrate {

Roofline measure_roofline(const RooflineOptions& opt) {
  Roofline r;
  r.backend_info = nlohmann::json::object();
  for (const Precision p : opt.precisions) {
    const std::unique_ptr<KernelBackend> b = make_backend(opt.backend, p, 0);
    r.device = b->device();
    r.backend_info[to_string(p)] = b->describe();
    const long long n = opt.gemm_size;
    r.gemm.push_back(GemmCeiling{p, b->time_rebuild(n, n, n, opt.timing)});
    // The copy once, on the first backend: it does not depend on the arithmetic's precision.
    if (r.copy_bytes == 0) {
      r.copy_bytes = opt.copy_bytes;
      r.copy = b->time_device_copy(opt.copy_bytes, opt.timing);
    }
  }
  return r;
}

nlohmann::json roofline_json(const Roofline& r, const RooflineOptions& opt) {
  nlohmann::json gemm = nlohmann::json::array();
  for (const GemmCeiling& g : r.gemm)
    gemm.push_back({{"precision", to_string(g.precision)},
                    {"m", opt.gemm_size},
                    {"n", opt.gemm_size},
                    {"k", opt.gemm_size},
                    {"flops", g.time.flops},
                    {"median_s", g.time.median_s},
                    {"min_s", g.time.min_s},
                    {"max_s", g.time.max_s},
                    {"repeats", g.time.repeats},
                    {"algorithm", g.time.algorithm},
                    {"flops_per_s", g.flops_per_s()}});
  return {{"format", "possim-roofline-1"},
          {"backend", opt.backend},
          {"device", r.device},
          {"backend_info", r.backend_info},
          {"timing", {{"warmup", opt.timing.warmup}, {"repeats", opt.timing.repeats}}},
          {"gemm", gemm},
          {"device_copy",
           {{"bytes", r.copy_bytes},
            {"median_s", r.copy.median_s},
            {"min_s", r.copy.min_s},
            {"max_s", r.copy.max_s},
            {"algorithm", r.copy.algorithm},
            {"bytes_per_s_read_plus_write", r.copy_bytes_per_s()}}}};
}

}  // namespace possim::calibrate
