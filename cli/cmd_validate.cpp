// possim validate MEASUREMENTS...: each measured point beside the prediction of a profile,
// with the relative error, the mean absolute error and the worst point. It fits nothing.
// possim validate SCENARIO --live: the scenario run for real against SimGrid
// (cli/validate_live.cpp).
#include <iostream>
#include <thread>

#include "calibrate/cluster_fit.hpp"
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/points_report.hpp"
#include "cli/progress.hpp"
#include "cli/table.hpp"
#include "cli/validate_live.hpp"
#include "model/input/error.hpp"
#include "model/input/limits.hpp"
#include "model/run/output_file.hpp"
#include "model/run/result_io.hpp"
#include "model/input/text.hpp"

namespace possim::cli {

namespace cal = possim::calibrate;

int cmd_validate(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::vector<std::string> paths;
  std::string profile_ref, engine_name = default_engine(), json_out;
  int batch = 32, shards = 0;
  bool live = false, quiet = false;
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  double latency_us = 50, tolerance = 0;
  desc.add_options()("measurements", po::value(&paths)->required()->multitoken(),
                     "CSV or JSON files of measured points")(
      "profile", po::value(&profile_ref), "profile that predicts (default: the one the points' profile column names)")(
      "engine", po::value(&engine_name)->default_value(engine_name), "simgrid or analytic")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "points predicted in parallel")(
      "batch", po::value(&batch)->default_value(32), "batch per GPU for points that give none")(
      "latency-us", po::value(&latency_us)->default_value(50),
      "one-way latency between nodes, microseconds")(
      "shards", po::value(&shards), "server shards (default: one per node, colocated)")(
      "tolerance", po::value(&tolerance)->default_value(0),
      "exit 1 when a point's |error| exceeds this fraction (0: never)")(
      "json", po::value(&json_out), "also write the points and errors as JSON to this file")(
      "live", po::bool_switch(&live),
      "the one argument is a scenario: run it live and with SimGrid on the same plan, and compare")(
      "quiet,q", po::bool_switch(&quiet), "no progress on stderr");
  po::positional_options_description pos;
  pos.add("measurements", -1);
  po::variables_map vm;
  if (!parse("validate", args, desc, pos, vm, "MEASUREMENTS... [--profile P] [--engine E] | SCENARIO --live"))
    return 0;
  if (!(tolerance >= 0) || !std::isfinite(tolerance))
    throw InputError("--tolerance", "", "is not a finite number >= 0", "a fraction >= 0");
  if (vm.count("json")) check_output_file(json_out, "--json");  // before the work ('' is refused)
  if (live) {
    if (paths.size() != 1) throw InputError("validate --live", "", "takes one scenario", "possim validate SCENARIO --live");
    return validate_live(paths.front(), tolerance, json_out);
  }
  if (batch < 1 || batch > 65536)
    throw InputError("--batch", "", std::to_string(batch) + " is not a batch size",
                     "an integer in [1, 65536]");
  if (jobs < 1) throw InputError("--jobs", "", "must be at least 1", "an integer >= 1");
  if (vm.count("shards") && (shards < 1 || shards > limits::kMaxShards))
    throw InputError("--shards", "", std::to_string(shards) + " is not a shard count",
                     "an integer in [1, " + std::to_string(limits::kMaxShards) + "]");
  if (!(tolerance >= 0) || !std::isfinite(tolerance))
    throw InputError("--tolerance", "", "is not a finite number >= 0", "a fraction >= 0");
  if (!(latency_us >= 0 && latency_us <= 1e6))
    throw InputError("--latency-us", "", "is not in range", "microseconds in [0, 1e6]");
  const std::unique_ptr<Engine> engine = make_engine(engine_name, engine_request());
  const MeasurementSet m = load_measurement_files(paths, batch);
  std::string note;
  const Profile profile = load_profile(measured_profile(m, profile_ref, "--profile", &note), ".");
  if (!note.empty()) std::cerr << "possim: warning: " << note << "\n";
  cal::ClusterAssumptions a;
  a.latency_s = latency_us * 1e-6;
  a.server_shards = shards;
  // Progress: redrawn on a terminal, plain lines in a log (every 5% of the points or 10 s).
  ProgressLine line("validate", m.points.size(), 0, !quiet);
  const std::vector<cal::PointResult> points =
      cal::predict_points(profile, m, a, *engine, jobs, [&](std::size_t done) { line.update(done); });
  line.finish();
  const ErrorSummary s = summarize(points);

  std::cout << "validate " << m.path << " against profile " << profile.name << " ("
            << engine->name() << " engine)\n\n";
  print_points(std::cout, points);
  std::cout << "\n" << counted(long(points.size()), "point") << ": mean |error| " << fixed(100 * s.mean_abs, 2)
            << "%, RMS " << fixed(100 * s.rms, 2) << "%, worst " << fixed(100 * s.worst, 2)
            << "% (" << s.worst_where << ")\n";
  if (!json_out.empty())
    write_file_atomic(json_out, nlohmann::json{{"measurements", m.path},
                                               {"profile", profile.name},
                                               {"profile_path", profile.path},
                                               {"engine", engine->name()},
                                               {"points", calibrate::points_json(points)},
                                               {"mean_abs_error", s.mean_abs},
                                               {"rms_error", s.rms},
                                               {"worst_error", s.worst},
                                               {"worst_point", s.worst_where}}
                                                    .dump(2) +
                                        "\n",
                      "--json");
  if (tolerance > 0 && s.worst > tolerance) {
    std::cout << "worst error above the tolerance of " << fixed(100 * tolerance, 2) << "%\n";
    return 1;
  }
  return 0;
}

}  // namespace possim::cli
