// possim calibrate roofline: the device's measured ceilings (a long square GEMM per
// precision, a large device-to-device copy) as a table, and as JSON with --out.
#include <iostream>
#include <sstream>

#include "calibrate/roofline.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/run/output_file.hpp"

namespace possim::cli {

int cmd_calibrate_roofline(const std::vector<std::string>& args) {
  namespace cal = possim::calibrate;
  po::options_description desc("options");
  std::string backend = "cpu", precisions, out;
  long long gemm = 0;
  double copy_mib = 0;
  int repeats = 10, warmup = 2;
  bool quiet = false;
  desc.add_options()("backend", po::value(&backend)->default_value(backend), "cpu (Eigen) or gpu (cuBLAS, CUDA)")(
      "precisions", po::value(&precisions), "comma-separated: fp32, tf32, bf16 (default: gpu all three, cpu fp32)")(
      "gemm", po::value(&gemm), "m = n = k of the square GEMM (default: gpu 8192, cpu 1024)")(
      "copy-mib", po::value(&copy_mib), "MiB of the device-to-device copy (default: gpu 1024, cpu 64)")(
      "repeats", po::value(&repeats)->default_value(repeats), "timed runs; the median counts")(
      "warmup", po::value(&warmup)->default_value(warmup), "untimed runs first")(
      "out", po::value(&out), "also write the measurements as JSON to this file")(
      "quiet,q", po::bool_switch(&quiet), "no table");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse("calibrate roofline", args, desc, pos, vm, "[--backend cpu|gpu] [--precisions fp32,tf32,bf16] [--out FILE]"))
    return 0;
  if (vm.count("out")) check_output_file(out, "--out");
  const bool gpu = backend == "gpu";
  cal::RooflineOptions opt;
  opt.backend = backend;
  if (!vm.count("precisions")) precisions = gpu ? "fp32,tf32,bf16" : "fp32";
  opt.precisions.clear();
  std::stringstream list(precisions);
  for (std::string p; std::getline(list, p, ',');) opt.precisions.push_back(cal::precision_from_string(p));
  if (opt.precisions.empty()) throw InputError("--precisions", "", "is empty", "fp32, tf32 or bf16, comma-separated");
  opt.gemm_size = vm.count("gemm") ? gemm : gpu ? 8192 : 1024;
  if (opt.gemm_size < 16 || opt.gemm_size > 65536)
    throw InputError("--gemm", "", std::to_string(opt.gemm_size) + " is out of range", "a size in [16, 65536]");
  const double mib = vm.count("copy-mib") ? copy_mib : gpu ? 1024 : 64;
  if (!(mib >= 1 && mib <= 65536)) throw InputError("--copy-mib", "", "is out of range", "MiB in [1, 65536]");
  opt.copy_bytes = mib * 1048576;
  if (repeats < 1 || repeats > 10000) throw InputError("--repeats", "", "is out of range", "an integer in [1, 10000]");
  if (warmup < 0 || warmup > 10000) throw InputError("--warmup", "", "is out of range", "an integer in [0, 10000]");
  opt.timing = {warmup, repeats};

  cal::Roofline r;
  try {
    r = cal::measure_roofline(opt);
  } catch (const cal::BackendUnavailable& e) {
    std::cerr << "possim calibrate roofline: " << e.what() << '\n';
    return 1;
  }
  if (vm.count("out")) write_file_atomic(out, cal::roofline_json(r, opt).dump(2) + "\n", "--out");
  if (!quiet) {
    std::cout << "roofline of " << r.device << " (" << backend << " backend, median of " << repeats << " after "
              << warmup << " warm-up)\n";
    Table t({"ceiling", "size", "median ms", "rate"});
    for (const cal::GemmCeiling& g : r.gemm)
      t.add({std::string("GEMM ") + cal::to_string(g.precision), std::to_string(opt.gemm_size) + "^3",
             fixed(g.time.median_s * 1e3, 3), si(g.flops_per_s(), "FLOP/s")});
    t.add({"device copy (read + write)", si(r.copy_bytes, "B"), fixed(r.copy.median_s * 1e3, 3),
           si(r.copy_bytes_per_s(), "B/s")});
    t.print(std::cout);
    if (vm.count("out")) std::cout << "wrote " << out << "\n";
  }
  return 0;
}

}  // namespace possim::cli
