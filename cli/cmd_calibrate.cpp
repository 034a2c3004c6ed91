// possim calibrate: measure this machine and fit the model to a real cluster.
//   calibrate kernels   time every layer of a model with a kernel backend -> profile
//   calibrate exchange  a live PS/SFB exchange over TCP -> tcp_goodput, per_message_s
//   calibrate fit       fit profile parameters to measured iteration times
// Each writes a profile that `possim run` accepts, and a NAME.calibration.json sidecar.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "calibrate/cluster_fit.hpp"
#include "calibrate/exchange/exchange.hpp"
#include "kernels/kernel_backend.hpp"
#include "calibrate/kernels.hpp"
#include "calibrate/queued_step.hpp"
#include "model/input/measurements.hpp"
#include "calibrate/profile_json.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/poor_fit.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/layer_json.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"
#include "model/plan/transport.hpp"
#include "model/run/output_file.hpp"
#include "net/netns.hpp"

namespace possim::cli {

namespace {

// The profile and its calibration record, checked before a measurement that takes minutes.
void check_profile_outputs(const std::string& out) {
  check_output_file(out, "--out");
  check_output_file(calibrate::sidecar_path(out), "--out (its calibration record)");
}

namespace cal = possim::calibrate;
namespace ex = possim::calibrate::exchange;

// The copy line goes into pcie_bytes_per_s and pcie_latency_s: a poor one stops the command
// (true) or, accepted, is said in their sources.
bool poor_copy_fit(const cal::KernelCalibration& c, bool accepted, const std::string& out, Profile& p) {
  const cal::FitVerdict v = cal::judge_copy_fit(c);
  if (stop_for_poor_fit(v, accepted, "calibrate kernels", out)) return true;
  if (v.poor())
    for (const char* f : {"pcie_bytes_per_s", "pcie_latency_s"}) note_poor_fit(p.sources[f], v);
  return false;
}

// The exchange's lines give the bandwidth that tcp_goodput, tcp_host_bytes_per_s and
// per_message_s's wire time are made of: a poor one stops the command (true) or, accepted,
// is said in the sources the exchange wrote.
bool poor_exchange_fit(const ex::ExchangeResult& r, bool accepted, const std::string& out, Profile& p) {
  const cal::FitVerdict v = cal::judge_exchange(r);
  if (stop_for_poor_fit(v, accepted, "calibrate exchange", out)) return true;
  if (v.poor())
    for (const char* f : {"tcp_goodput", "tcp_host_bytes_per_s", "per_message_s"})
      if (p.sources.count(f) && p.sources[f].find("possim calibrate exchange") != std::string::npos)
        note_poor_fit(p.sources[f], v);
  return false;
}

const char* kCalibrateUsage =
    "usage: possim calibrate SUBCOMMAND [options]\n"
    "\n"
    "subcommands:\n"
    "  kernels   time every layer of a model (forward, backward-data, backward-filter), the SF\n"
    "            rebuild GEMMs and host<->device copies; --backend cpu (Eigen) or gpu "
    "(cuDNN/cuBLAS)\n"
    "  exchange  a live PS/SFB exchange between processes over TCP (loopback, network namespaces\n"
    "            shaped with tc, or mpirun across nodes); fits bandwidth and per-message cost\n"
    "  roofline  the device's measured ceilings: a long square GEMM per precision (fp32, tf32,\n"
    "            bf16) and a large device-to-device copy\n"
    "  fit       fit a profile's physics and its software stacks' parameters to measured\n"
    "            iteration times, images/s or speedups by least squares, with the engine that\n"
    "            predicts (SimGrid by default)\n"
    "\n"
    "A poor fit (calibrate fit: RMS relative residual above 10% or a parameter stuck where its\n"
    "mechanism is impossible; exchange, kernels' PCIe copies: a line below R^2 0.9 or with a\n"
    "negative fixed cost) is named on stderr and exits 3 with nothing written, unless\n"
    "--accept-poor-fit.\n"
    "`possim calibrate SUBCOMMAND --help` describes its options.\n";

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

bool progress_wanted(bool quiet) { return !quiet; }

int cmd_kernels(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::string model, backend_name, precision_name, base_ref, out, name, from, roofline;
  int batch = 32, repeats = 0, warmup = 1, layers = 0, peers = 1, step_repeats = 0;
  bool keep_throughput = false, no_copies = false, quiet = false, accept_poor = false, queued_step = false;
  desc.add_options()("model", po::value(&model), "zoo model name or layer JSON file")(
      "from", po::value(&from),
      "no backend: a recorded run (NAME.calibration.json) made into a profile on --base")(
      "queued-step", po::bool_switch(&queued_step),
      "with --from: every layer's seconds scaled by the run's back-to-back step / its summed kernel medians (a "
      "framework's queued step, which hides the host time each kernel timed alone carries; needs a run recorded "
      "with --step-repeats)")(
      "roofline", po::value(&roofline),
      "a possim calibrate roofline file of the same device: its copy rate times the optimizer step")(
      "batch", po::value(&batch)->default_value(32), "images per GPU")(
      "backend", po::value(&backend_name)->default_value("cpu"),
      "cpu (Eigen) or gpu (cuDNN/cuBLAS)")("precision",
                                           po::value(&precision_name)->default_value("fp32"),
                                           "fp32, tf32 or bf16 (gpu only for the last two)")(
      "repeats", po::value(&repeats),
      "timed runs per kernel; the median counts (default: gpu 10, cpu 3)")(
      "warmup", po::value(&warmup)->default_value(1), "untimed runs per kernel first")(
      "layers", po::value(&layers)->default_value(0),
      "time only the first N layers (0: all); the rest are estimated from their kind's achieved "
      "rate")("rebuild-peers", po::value(&peers)->default_value(1),
              "SF rebuild GEMM inner dimension = batch x peers")(
      "step-repeats", po::value(&step_repeats)->default_value(0),
      "also time N whole steps on the prepared layers, each pass waited for and back to back, with each "
      "pass's time in the back-to-back queue (the sidecar's step; 0: none)")(
      "base", po::value(&base_ref)->default_value("titanx_maxwell"),
      "profile whose fields are kept where nothing was measured (name or file)")(
      "name", po::value(&name), "profile name (default: the output file's stem)")(
      "keep-throughput", po::bool_switch(&keep_throughput),
      "keep the base profile's throughput points")("no-copies", po::bool_switch(&no_copies),
                                                   "skip the copy-bandwidth curve")(
      "accept-poor-fit", po::bool_switch(&accept_poor),
      "write the profile even when the host<->device copy line is poor: R^2 below 0.9 (a "
      "negative fixed cost is first clamped to 0 and the rate refitted). Without it a poor line "
      "is named on stderr, nothing is written, exit status 3; with it the PCIe sources say so")(
      "out", po::value(&out)->required(),
      "profile JSON to write (and NAME.calibration.json beside it)")(
      "quiet,q", po::bool_switch(&quiet), "no progress on stderr");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse("calibrate kernels", args, desc, pos, vm,
             "--model M [--batch B] [--backend cpu|gpu] [--precision fp32|tf32|bf16] [--repeats R] "
             "--out FILE\n       possim calibrate kernels --from RUN.calibration.json --base PROFILE --out FILE"))
    return 0;
  // Read before anything is measured or written: a bad file fails first.
  std::optional<cal::OptimizerRate> optimizer;
  if (!roofline.empty())
    optimizer = cal::optimizer_rate(
        json_check::Reader(roofline).parse(
            read_input_file(roofline, "roofline file", "a file of possim calibrate roofline"), "a roofline file"),
        roofline);
  if (!from.empty()) {
    // A run measured elsewhere (a lent GPU) re-made on another base: nothing is timed.
    if (!model.empty()) throw InputError("--model", "", "comes from the recorded run with --from", "no --model");
    check_profile_outputs(out);
    if (name.empty()) name = stem(out);
    const json_check::Reader r(from);
    const nlohmann::json side =
        r.parse(read_input_file(from, "calibration sidecar", "NAME.calibration.json of possim calibrate kernels"),
                "a calibration sidecar");
    r.object(side, "", "a calibration sidecar");
    const Network net = load_network(r.label(r.require(side, "", "model", "the model timed"), "model", 128, "a model"), ".");
    const Profile base = load_profile(base_ref, ".");
    cal::KernelCalibration c = cal::recorded_calibration(side, net, from);
    if (queued_step) cal::scale_to_queued_step(c, from);
    Profile p = cal::calibrated_profile(base, c, name, keep_throughput);
    if (optimizer) optimizer->apply_to(p);
    if (poor_copy_fit(c, accept_poor, out, p)) return kPoorFitExit;
    nlohmann::json sidecar = cal::kernel_sidecar(c, base);
    sidecar["recorded"] = "timed on " + c.device + " and made into this profile by possim calibrate kernels --from " + from +
                         (queued_step ? " --queued-step" : "");
    cal::write_profile_with_sidecar(p, sidecar, out);
    if (!quiet) std::cerr << "calibrate: " << net.name << " at batch " << c.batch << " on " << c.device << " (recorded in "
                          << from << ") on base " << base.name
                          << (queued_step ? ", every layer scaled by " + g4(c.queued_step_scale) + " to its queued step" : "")
                          << ": wrote " << out << '\n';
    return 0;
  }
  if (model.empty()) throw InputError("--model", "", "missing", "a zoo model name or layer JSON file (or --from)");
  if (queued_step)
    throw InputError("--queued-step", "", "scales a recorded run", "--from RUN.calibration.json (a run recorded with --step-repeats)");
  if (batch < 1)
    throw InputError("--batch", "", std::to_string(batch) + " is not a batch size",
                     "an integer >= 1");
  if (warmup < 0) throw InputError("--warmup", "", "is negative", "an integer >= 0");
  if (layers < 0) throw InputError("--layers", "", "is negative", "an integer >= 0");
  if (peers < 1) throw InputError("--rebuild-peers", "", "must be at least 1", "an integer >= 1");
  if (step_repeats < 0 || step_repeats > 1000)
    throw InputError("--step-repeats", "", std::to_string(step_repeats) + " is out of range", "an integer in [0, 1000]");
  if (!vm.count("repeats")) repeats = backend_name == "gpu" ? 10 : 3;
  if (repeats < 1) throw InputError("--repeats", "", "must be at least 1", "an integer >= 1");
  check_profile_outputs(out);  // before the measurements
  if (name.empty()) name = stem(out);

  const Network net = load_network(model, ".");
  const Profile base = load_profile(base_ref, ".");
  const cal::Precision precision = cal::precision_from_string(precision_name);
  std::unique_ptr<cal::KernelBackend> backend;
  try {
    backend = cal::make_backend(backend_name, precision, 1);
  } catch (const cal::BackendUnavailable& e) {
    std::cerr << "possim calibrate kernels: " << e.what() << '\n';
    return 1;
  }
  cal::KernelRunOptions opt;
  opt.timing.repeats = repeats;
  opt.timing.warmup = warmup;
  opt.max_layers = layers;
  opt.rebuild_peers = peers;
  opt.step_repeats = step_repeats;
  if (no_copies) opt.copy_sizes_bytes.clear();
  if (progress_wanted(quiet))
    opt.progress = [](const std::string& s) { std::cerr << "calibrate: " << s << '\n'; };
  if (!quiet)
    std::cerr << "calibrate: " << net.name << " (" << net.layers.size() << " layers) at batch "
              << batch << " on " << backend->device() << ", " << repeats
              << " timed runs per kernel after " << warmup << " warm-up\n";

  const cal::KernelCalibration c = cal::calibrate_kernels(net, batch, *backend, opt);
  Profile p = cal::calibrated_profile(base, c, name, keep_throughput);
  if (optimizer) optimizer->apply_to(p);
  if (poor_copy_fit(c, accept_poor, out, p)) return kPoorFitExit;
  cal::write_profile_with_sidecar(p, cal::kernel_sidecar(c, base), out);

  if (!quiet) {
    double f = 0, b = 0;
    for (const auto& l : c.measured.layers) f += l.forward_s, b += l.backward_s;
    std::cout << "profile " << p.name << ": " << net.name << " at batch " << batch << " on "
              << p.device << "\n"
              << "  forward " << g4(f) << " s + backward " << g4(b)
              << " s per iteration = " << g4(batch / (f + b)) << " images/s (layers only)\n";
    Table t({"kind", "achieved FLOP/s", "efficiency"});
    for (const auto& [k, r] : c.kind_flops_per_s)
      t.add({to_string(k), si(r, "FLOP/s"), fixed(p.kind_efficiency.at(k), 4)});
    t.print(std::cout);
    if (c.rebuild_flops_per_s > 0)
      std::cout << "  SF rebuild: " << si(c.rebuild_flops_per_s, "FLOP/s") << "\n";
    if (c.copy_fit_ok)
      std::cout << "  "
                << (c.copies_cross_a_bus ? "PCIe copies" : "host memcpy (not written: no bus)")
                << ": " << si(c.copy_fit.rate(), "B/s") << ", " << g4(c.copy_fit.intercept * 1e6)
                << " us fixed"
                << (c.copy_fit.clamped_intercept < 0
                        ? " (the free line's " + g4(c.copy_fit.clamped_intercept * 1e6) +
                              " us clamped to 0, the rate refitted)"
                        : std::string())
                << ", R^2 " << fixed(c.copy_fit.r2, 5) << "\n";
    if (!c.estimated_layers.empty())
      std::cout << "  " << c.estimated_layers.size() << " layers estimated, not timed (--layers "
                << layers << ")\n";
    std::cout << "wrote " << out << " and " << cal::sidecar_path(out) << " (" << g4(c.wall_s)
              << " s)\n";
  }
  return 0;
}

// Rank and size from the launcher's environment (Open MPI, PMI/PMIx, Slurm).
int env_int(std::initializer_list<const char*> names, int fallback) {
  for (const char* n : names)
    if (const char* v = std::getenv(n)) {
      const auto x = parse_decimal_integer(v);
      if (!x || *x < 0 || *x > limits::kMaxNodes)
        throw InputError(n, "", std::string("'") + std::string(v).substr(0, 16) + "' is not a rank or a size",
                         "an integer in [0, " + std::to_string(limits::kMaxNodes) + "]");
      return int(*x);
    }
  return fallback;
}

std::vector<double> parse_sizes(const std::string& text, const std::string& option) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const std::optional<double> parsed = parse_decimal(item);
    const double v = parsed.value_or(0);
    if (!parsed || !(v >= 1 && v <= 1e12))
      throw InputError(option, "", "'" + json_check::quoted(item) + "' is not a size in bytes",
                       "comma-separated byte counts, e.g. 262144,1048576");
    out.push_back(v);
  }
  if (out.size() < 2)
    throw InputError(option, "", "needs at least two sizes to fit a line", "two or more sizes");
  return out;
}

// Each path's line, the transport and the per-message cost.
void print_exchange(const ex::ExchangeResult& r, const Profile& p, std::ostream& out) {
  Table t({"path", "messages", "bandwidth", "+/-", "intercept us", "R^2"});
  for (const auto& pf : r.paths)
    t.add({pf.path,
           std::to_string(pf.fit.points) +
               (pf.fit.dropped ? " (-" + std::to_string(pf.fit.dropped) + ")" : ""),
           si(pf.fit.rate(), "B/s"), si(pf.fit.rate_se(), "B/s"),
           fixed(pf.fit.intercept * 1e6, 1), fixed(pf.fit.r2, 5)});
  t.print(out);
  if (r.line_rate_bytes_per_s > 0) {
    out << "line rate " << si(r.line_rate_bytes_per_s, "B/s")
        << ": TCP payload / line = " << fixed(r.tcp_goodput, 4) << "; the profile's "
        << describe(transport_rates(p, Cluster{})) << "\n";
    if (r.wire_bytes_per_s > 0) {
      const double ratio = r.wire_bytes_per_s / r.line_rate_bytes_per_s;
      out << "on the wire (payload x (MTU " << r.mtu << " + 14) / MSS " << r.mss_bytes
          << "): " << si(r.wire_bytes_per_s, "B/s") << " = " << fixed(ratio, 4)
          << " of the shaped rate (" << (std::abs(ratio - 1) <= 0.05 ? "within" : "OUTSIDE")
          << " 5%)\n";
    }
  }
  out << "per message " << g4(r.per_message_s * 1e6) << " +/- "
      << g4(r.per_message_se_s * 1e6) << " us; server apply "
      << si(r.server_apply_bytes_per_s, "B/s") << "\n";
}

int cmd_exchange(const std::vector<std::string>& args) {
  po::options_description desc("options");
  ex::ExchangeOptions opt;
  std::string base_ref, out, name, coordinator, kv_sizes, sf_sizes;
  bool with_apply = false, quiet = false, accept_poor = false;
  int rank = -1, size = -1;
  desc.add_options()("workers", po::value(&opt.workers)->default_value(2),
                     "worker processes (nodes)")("shards", po::value(&opt.shards)->default_value(2),
                                                 "server shards")(
      "dedicated-servers", po::bool_switch(&opt.dedicated_servers),
      "shards on their own nodes (default: on the workers)")(
      "netns", po::bool_switch(&opt.netns),
      "run each node in its own network namespace, links shaped with tc (root)")(
      "rate-gbit", po::value(&opt.rate_gbit)->default_value(1.0),
      "with --netns: tbf rate of every link, Gbit/s")(
      "mtu", po::value(&opt.mtu)->default_value(1500), "with --netns: MTU of the veth links")(
      "line-gbit", po::value(&opt.line_rate_gbit)->default_value(0),
      "NIC line rate when known (gives tcp_goodput)")(
      "repeats", po::value(&opt.repeats)->default_value(3), "rounds of every message size")(
      "kv-sizes", po::value(&kv_sizes),
      "push/pull sizes in bytes, comma-separated (default 256e3..4e6)")(
      "sf-sizes", po::value(&sf_sizes), "SF broadcast sizes in bytes, comma-separated")(
      "burst", po::value(&opt.burst_count)->default_value(100),
      "small messages per burst (per-message cost)")(
      "timeout", po::value(&opt.timeout_s)->default_value(60), "seconds any step may take")(
      "coordinator", po::value(&coordinator),
      "HOST:PORT of rank 0, for an mpirun launch across nodes")(
      "rank", po::value(&rank),
      "this process's rank (default: from OMPI_COMM_WORLD_RANK, PMI_RANK or SLURM_PROCID)")(
      "size", po::value(&size), "number of ranks (default: from the launcher's environment)")(
      "with-apply", po::bool_switch(&with_apply),
      "also write the measured server apply rate into the profile")(
      "base", po::value(&base_ref)->default_value("titanx_maxwell"),
      "profile the fitted numbers are merged into")(
      "name", po::value(&name), "profile name (default: the output file's stem)")(
      "accept-poor-fit", po::bool_switch(&accept_poor),
      "write the profile even when a line is poor: a path's or the pooled R^2 below 0.9, or an "
      "intercept more than 2 standard errors below 0 (not under --netns, whose token bucket makes "
      "one real). Without it a poor line is named on stderr, nothing is written, exit status 3; "
      "with it the sources the exchange wrote say so")(
      "out", po::value(&out)->required(), "profile JSON to write (rank 0 only under mpirun)")(
      "quiet,q", po::bool_switch(&quiet), "no progress on stderr");
  po::positional_options_description pos;
  po::variables_map vm;
  if (!parse("calibrate exchange", args, desc, pos, vm,
             "[--netns --rate-gbit 1] [--workers 2 --shards 2] [--coordinator HOST:PORT] --base "
             "PROFILE --out FILE"))
    return 0;
  if (!kv_sizes.empty()) opt.kv_sizes_bytes = parse_sizes(kv_sizes, "--kv-sizes");
  if (!sf_sizes.empty()) opt.sf_sizes_bytes = parse_sizes(sf_sizes, "--sf-sizes");
  if (opt.netns && !coordinator.empty())
    throw InputError("--netns", "", "namespaces are local; --coordinator is for real nodes",
                     "one of the two");
  check_profile_outputs(out);  // before the exchange
  if (name.empty()) name = stem(out);
  if (!quiet) opt.progress = [](const std::string& s) { std::cerr << "exchange: " << s << '\n'; };
  const Profile base = load_profile(base_ref, ".");

  ex::ExchangeResult r;
  if (!coordinator.empty()) {
    const auto colon = coordinator.rfind(':');
    if (colon == std::string::npos)
      throw InputError("--coordinator", "", "'" + coordinator + "' has no port", "HOST:PORT");
    const std::string host = coordinator.substr(0, colon);
    const std::optional<long long> port_v = parse_decimal_integer(coordinator.substr(colon + 1));
    if (!port_v || *port_v < 1 || *port_v > 65535)
      throw InputError("--coordinator", "", "'" + json_check::quoted(coordinator) + "' has no port in [1, 65535]", "HOST:PORT");
    const int port = int(*port_v);
    if (rank < 0)
      rank = env_int({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}, -1);
    if (size < 0) size = env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}, -1);
    if (rank < 0 || size < 1)
      throw InputError("--rank", "", "no rank/size given and none in the environment",
                       "--rank R --size N, or launch with mpirun");
    r = ex::run_rank_exchange(opt, host, port, rank, size);
    if (rank != 0) return 0;
  } else {
    try {
      r = ex::run_local_exchange(opt);
    } catch (const net::NetnsError& e) {
      std::cerr << "possim calibrate exchange: " << e.what() << '\n';
      return 1;
    }
  }
  Profile p = ex::exchange_profile(base, r, name);
  if (with_apply && r.server_apply_bytes_per_s > 0) {
    p.server_apply_bytes_per_s = r.server_apply_bytes_per_s;
    p.sources["server_apply_bytes_per_s"] =
        "possim calibrate exchange: shards' parameter updates (p -= lr g over "
        "each pushed KV pair), total bytes / total seconds";
  }
  const bool stop = poor_exchange_fit(r, accept_poor, out, p);
  if (!quiet) print_exchange(r, p, std::cout);  // the table says which line
  if (stop) return kPoorFitExit;
  cal::write_profile_with_sidecar(p, ex::exchange_sidecar(r, opt, base), out);
  if (!quiet)
    std::cout << "wrote " << out << " and " << cal::sidecar_path(out) << " (" << g4(r.wall_s) << " s)\n";
  return 0;
}

}  // namespace

int cmd_calibrate(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kCalibrateUsage;
    if (!args.empty()) return 0;
    std::cerr << "possim: possim calibrate: no subcommand given (expected kernels, exchange, roofline or fit)\n";
    return 2;
  }
  const std::string sub = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "kernels") return cmd_kernels(rest);
  if (sub == "exchange") return cmd_exchange(rest);
  if (sub == "fit") return cmd_calibrate_fit(rest);
  if (sub == "roofline") return cmd_calibrate_roofline(rest);
  throw InputError("possim calibrate", "command line", "unknown subcommand '" + sub + "'",
                   "kernels, exchange, roofline or fit");
}

}  // namespace possim::cli
