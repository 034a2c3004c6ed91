// possim collective SCENARIO --strategy S: one all-reduce alone, at each buffer size, on the
// scenario's cluster, printed as NCCL-tests' all_reduce_perf prints its measurements (size,
// count, type, time, algbw, busbw); with --compare FILE, beside all_reduce_perf's own output
// from a real cluster, row by row, with the error. What the engine charges for a collective
// (line rate x transport efficiency, latency per round, launch cost, NVLink copies) is set
// against the microbenchmark every cluster is checked with.
#include <cmath>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/limits.hpp"
#include "model/input/nccl_tests.hpp"
#include "model/input/text.hpp"
#include "model/run/collective_bench.hpp"

namespace possim::cli {

namespace {

// "8", "64K", "1M", "8G": bytes as all_reduce_perf's -b and -e take them (K = 1024).
double parse_bytes(const std::string& s, const std::string& option) {
  if (s.empty()) throw InputError(option, "", "is empty", "bytes: 8, 64K, 1M, 8G");
  double unit = 1;
  std::string digits = s;
  const char last = char(std::toupper(static_cast<unsigned char>(s.back())));
  if (last == 'K' || last == 'M' || last == 'G' || last == 'T') {
    unit = last == 'K' ? 1024.0 : last == 'M' ? 1048576.0 : last == 'G' ? 1073741824.0 : 1099511627776.0;
    digits.pop_back();
  }
  const std::optional<long long> v = parse_decimal_integer(digits);
  if (!v || *v < 1 || double(*v) * unit > 1099511627776.0)
    throw InputError(option, "", "'" + s + "' is not a buffer size", "bytes from 1 to 1T: 8, 64K, 1M, 8G");
  return double(*v) * unit;
}

}  // namespace

int cmd_collective(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::string scenario_path, strategy, engine_name = "analytic", range = "8:1G", compare;
  int nodes = 0;
  double nic_gbps = 0, tolerance = 0;
  bool quiet = false;
  desc.add_options()("scenario", po::value(&scenario_path)->required(), "scenario whose cluster and profile run it")(
      "strategy", po::value(&strategy)->required(), "the collective: allreduce, tree_allreduce or hier_allreduce")(
      "nodes", po::value(&nodes), "nodes (default: the scenario's first)")(
      "nic-gbps", po::value(&nic_gbps), "each NIC's line rate, Gbit/s (default: the scenario's first)")(
      "bytes", po::value(&range)->default_value(range),
      "MIN:MAX buffer sizes, doubling (all_reduce_perf -b MIN -e MAX -f 2; K, M, G = 1024^n)")(
      "compare", po::value(&compare),
      "all_reduce_perf's output from a real cluster: its sizes and type are run, each beside its measured time")(
      "engine", po::value(&engine_name)->default_value(engine_name), "analytic or simgrid")(
      "tolerance", po::value(&tolerance)->default_value(0),
      "with --compare, exit 1 when a size's |error| exceeds this fraction (0: never)")(
      "quiet,q", po::bool_switch(&quiet), "no progress on stderr");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse("collective", args, desc, pos, vm,
             "SCENARIO --strategy allreduce|tree_allreduce|hier_allreduce [--bytes 8:1G] [--compare FILE]"))
    return 0;
  if (!(tolerance >= 0) || !std::isfinite(tolerance))
    throw InputError("--tolerance", "", "is not a finite number >= 0", "a fraction >= 0");
  Scenario s = load_scenario(scenario_path);
  if (!vm.count("nodes")) nodes = s.nodes.front();
  if (!vm.count("nic-gbps")) nic_gbps = s.nic_gbps.front();
  if (nodes < 1 || nodes > limits::kMaxNodes)
    throw InputError("--nodes", "", std::to_string(nodes) + " is not a node count",
                     "an integer in [1, " + std::to_string(limits::kMaxNodes) + "]");
  if (!(nic_gbps >= limits::kMinNicGbps && nic_gbps <= limits::kMaxNicGbps))
    throw InputError("--nic-gbps", "", "is not a NIC rate", "Gbit/s in [0.1, 3200]");
  const int ranks = nodes * s.gpus_per_node;

  // The sizes: the measured file's rows, or the doubling range.
  std::vector<double> sizes;
  NcclTestsFile measured;
  if (!compare.empty()) {
    measured = load_nccl_tests(compare);
    if (measured.ranks != ranks)
      throw InputError(compare, "", "lists " + std::to_string(measured.ranks) + " ranks where the cluster has " +
                                        std::to_string(nodes) + " nodes x " + std::to_string(s.gpus_per_node) +
                                        " GPUs = " + std::to_string(ranks),
                       "--nodes and the scenario's gpus_per_node making its rank count");
    const std::string type = measured.rows.front().type;
    const std::optional<DType> d = gradient_dtype_of(type);
    if (!d)
      throw InputError(compare, "type", "'" + type + "' is not a type gradients travel in",
                       "float, half or bfloat16");
    for (const NcclTestsRow& r : measured.rows) {
      if (r.type != type)
        throw InputError(compare + ":" + std::to_string(r.line), "type", "differs from the first row's " + type,
                         "one type per run");
      sizes.push_back(r.bytes);
    }
    s.numerics.gradient = *d;  // the buffer's type: the bytes per value possim moves
  } else {
    const auto colon = range.find(':');
    if (colon == std::string::npos) throw InputError("--bytes", "", "'" + range + "' has no ':'", "MIN:MAX, e.g. 8:1G");
    const double lo = parse_bytes(range.substr(0, colon), "--bytes"), hi = parse_bytes(range.substr(colon + 1), "--bytes");
    if (hi < lo) throw InputError("--bytes", "", "MAX is below MIN", "MIN:MAX with MIN <= MAX");
    const double value = bytes_per_value(s.numerics.gradient);
    for (double b = lo; b <= hi && sizes.size() < 64; b *= 2)
      sizes.push_back(std::max(value, std::floor(b / value) * value));  // whole values, as all_reduce_perf rounds
  }
  const std::unique_ptr<Engine> engine = make_engine(engine_name, engine_request(&s));

  const double bus = allreduce_bus_factor(ranks);
  ProgressLine line("collective", sizes.size(), 0, !quiet);
  std::vector<double> times;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    times.push_back(collective_time_s(s, strategy, nodes, nic_gbps, sizes[i], *engine));
    line.update(i + 1, std::to_string(std::int64_t(sizes[i])) + " B");
  }
  line.finish();

  const Profile& p = s.profile_for(strategy);
  std::cout << "collective " << strategy << ": " << nodes << " nodes x " << s.gpus_per_node << " GPUs (" << ranks
            << " ranks), " << s.nics_per_node << " x " << g4(nic_gbps) << " Gbit/s per node, " << to_string(s.transport)
            << ", latency " << g4(s.latency_s * 1e6) << " us, profile " << p.name << ", " << engine->name()
            << " engine\n";
  std::cout << "busbw = algbw x 2(n-1)/n = algbw x " << fixed(bus, 4)
            << " (NCCL-tests); time: one all-reduce in a steady state, its launch (collective_launch_s "
            << g4(p.collective_launch_s * 1e6) << " us) included\n\n";
  std::vector<std::string> head = {"size (B)", "count", "type", "time (us)", "algbw (GB/s)", "busbw (GB/s)"};
  if (!compare.empty()) {
    head.push_back("measured (us)");
    head.push_back("error");
  }
  Table t(head);
  const std::string type = nccl_type_of(s.numerics.gradient);
  double sum_abs = 0, worst = -1;
  std::string worst_at;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double alg = sizes[i] / times[i] / 1e9;
    std::vector<std::string> row = {std::to_string(std::int64_t(sizes[i])),
                                    std::to_string(std::int64_t(sizes[i] / bytes_per_value(s.numerics.gradient))),
                                    type, fixed(times[i] * 1e6, 1), fixed(alg, 2), fixed(alg * bus, 2)};
    if (!compare.empty()) {
      const NcclTestsRow& m = measured.rows[i];
      const double err = times[i] / m.time_s - 1;
      row.push_back(fixed(m.time_s * 1e6, 1));
      row.push_back(fixed(100 * err, 2) + "%");
      sum_abs += std::abs(err);
      if (std::abs(err) > worst) {
        worst = std::abs(err);
        worst_at = compare + ":" + std::to_string(m.line);
      }
    }
    t.add(row);
  }
  t.print(std::cout);
  if (compare.empty()) return 0;
  std::cout << "\n" << counted(long(sizes.size()), "size") << ": mean |error| " << fixed(100 * sum_abs / double(sizes.size()), 2)
            << "%, worst " << fixed(100 * worst, 2) << "% (" << worst_at << ")\n";
  if (tolerance > 0 && worst > tolerance) {
    std::cout << "worst error above the tolerance of " << fixed(100 * tolerance, 2) << "%\n";
    return 1;
  }
  return 0;
}

}  // namespace possim::cli
