// possim calibrate fit: fit a profile's physics and its stacks' software parameters to
// measured points with the engine that `possim run` predicts with, and say how well each
// parameter is determined.
#include <cmath>
#include <iostream>
#include <sstream>
#include <thread>

#include "calibrate/cluster_fit.hpp"
#include "calibrate/profile_json.hpp"
#include "calibrate/set_parameters.hpp"
#include "cli/commands.hpp"
#include "cli/intervals.hpp"
#include "cli/options.hpp"
#include "cli/points_report.hpp"
#include "cli/poor_fit.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"
#include "model/run/output_file.hpp"
#include "model/run/result_io.hpp"
#include "model/run/sweep.hpp"
#include "model/input/input_file.hpp"

namespace possim::cli {

namespace {

namespace cal = possim::calibrate;

// --predict takes measured points or a scenario: a JSON object with a "cluster" is a scenario.
bool is_scenario_file(const std::string& path) {
  if (std::filesystem::path(path).extension() != ".json") return false;
  const std::string text = read_input_file(path, "--predict file", "a measurement file or a scenario JSON");
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("cluster");
}

// The scenario's points on the fitted profile, each with its interval.
void print_scenario_predictions(const Scenario& s, const std::vector<Result>& results,
                                const cal::SigmaAxes& axes, std::ostream& out) {
  out << "\npredicted, not fitted (" << s.path << ", on the fitted profile " << s.profile.name << "):\n";
  Table t({"strategy", "nodes", "Gbit/s", "images/s", "95% interval", "speedup", "iter s", "iter s 95%"});
  for (const Result& r : results)
    t.add({r.strategy, std::to_string(r.cluster.nodes), fixed(r.cluster.nic_gbps, 1), fixed(r.images_per_s, 1),
           images_interval(r), fixed(r.speedup, 2) + "x", fixed(r.iteration_s, 4),
           r.interval ? fixed(r.interval->iteration_s_lo, 4) + "-" + fixed(r.interval->iteration_s_hi, 4) : "-"});
  t.print(out);
  out << (axes.empty() ? "no interval: the fit determined no parameter this scenario reads"
                       : axes.method())
      << "\n";
}

// The fit's parameters, their correlations, what the points do not determine, and every
// point's residual.
void print_fit(const cal::ClusterFit& f, const MeasurementSet& m, const Engine& engine, const Profile& base,
               std::ostream& out) {
  out << "fit of " << counted(long(f.names.size()), "parameter") << " to "
      << counted(long(m.points.size()), "point") << " of " << m.path << " with the " << engine.name() << " engine (base "
      << base.name << ", best of " << counted(f.starts_tried, "start") << ", " << counted(f.lm.iterations, "iteration")
      << (f.lm.converged ? "" : ", NOT converged") << ")\n\n";
  Table t({"parameter", "start", "fitted", "+/- 1 sigma", "relative"});
  for (std::size_t i = 0; i < f.names.size(); ++i) {
    const int b = f.lm.at_bound[i];
    const std::string sigma = b < 0                       ? "at lower bound"
                              : b > 0                     ? "at upper bound"
                              : std::isfinite(f.sigma[i]) ? g4(f.sigma[i])
                                                          : "unidentified";
    t.add({f.names[i], g4(f.start[i]), g4(f.values[i]), sigma,
           std::isfinite(f.sigma[i]) ? percent(f.sigma[i] / f.values[i]) : "-"});
  }
  t.print(out);
  if (f.names.size() > 1) {
    out << "\ncorrelation\n";
    std::vector<std::string> head = {""};
    for (std::size_t i = 0; i < f.names.size(); ++i) head.push_back(std::to_string(i + 1));
    Table c(head);
    for (std::size_t i = 0; i < f.names.size(); ++i) {
      std::vector<std::string> row = {std::to_string(i + 1) + " " + f.names[i]};
      for (std::size_t j = 0; j < f.names.size(); ++j)
        row.push_back(i < f.correlation.size() && j < f.correlation[i].size() &&
                              std::isfinite(f.correlation[i][j])
                          ? fixed(f.correlation[i][j], 2)
                          : "-");
      c.add(row);
    }
    c.print(out);
  }
  for (std::size_t i = 0; i < f.names.size(); ++i) {
    // (A parameter at the end of its range has its own warning: the points push it out.)
    if (std::isfinite(f.sigma[i]) || f.lm.at_bound[i] != 0) continue;
    const std::string& n = f.names[i];
    const bool per_iteration = n.size() >= 15 && n.compare(n.size() - 15, 15, "per_iteration_s") == 0;
    if (per_iteration)  // it sits on the GPU, inside the time the throughput points fix
      out << "note: these points do not determine " << n
          << ": a model's single-GPU throughput point times its layers to batch / "
             "images_per_s less per_iteration_s, so the iteration absorbs it; a fixed cost "
             "outside the GPU is STACK.step_sync_s\n";
    else
      out << "note: these points do not determine " << n
          << " (the iterations they measured hardly depend on it, or they disagree too much to "
             "say: a 1-sigma factor above e^5); measure it directly or add points where it limits "
             "the iteration\n";
  }
  for (const auto& pair : cal::confounded(f))
    out << "note: these points hardly tell apart " << pair
        << ": only their combination is determined\n";
  out << "\n";
  print_points(out, f.points);
  out << "RMS residual " << fixed(100 * f.rms_residual, 2) << "%\n";
}

}  // namespace

int cmd_calibrate_fit(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::vector<std::string> meas_paths, starts, sets;
  std::string set_why;
  std::string base_ref, out, name, free_list, predict_path, engine_name = default_engine();
  int batch = 32, shards = 0, restarts = 8;
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  double latency_us = 50;
  bool quiet = false, accept_poor = false, all_iterations = false;
  std::string default_free;
  for (const auto& n : cal::default_fit_parameters())
    default_free += (default_free.empty() ? "" : ",") + n;
  desc.add_options()("measurements", po::value(&meas_paths)->required()->multitoken(),
                     "CSV or JSON files of measured points (iteration_s, images_per_s or "
                     "speedup; possim's results.csv too)")(
      "profile", po::value(&base_ref)->required(), "base profile (its other fields are kept)")(
      "out", po::value(&out)->required(), "fitted profile JSON to write")(
      "free", po::value(&free_list)->default_value(default_free),
      "parameters to fit, comma-separated: physics (tcp_goodput, tcp_host_bytes_per_s, pcie_bytes_per_s, "
      "compute_scale, tensor_core_scale, tf32_scale, memory_bound_scale) and software parameters, top-level or "
      "STACK.PARAM")(
      "engine", po::value(&engine_name)->default_value(engine_name),
      "engine that predicts each point: simgrid or analytic (default: possim run's)")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "points predicted in parallel")(
      "restarts", po::value(&restarts)->default_value(restarts),
      "extra deterministic starts (with the analytic engine when --engine simgrid)")(
      "start", po::value(&starts)->multitoken(),
      "start values NAME=VALUE (default: the base profile's)")(
      "set", po::value(&sets)->multitoken(),
      "parameters held at a value, not fitted: NAME=VALUE (a name --free takes; relative ones multiply "
      "the base, as a fit's do), for a value carried from elsewhere; needs --set-why")(
      "set-why", po::value(&set_why),
      "where the --set values come from, one line: written into their sources in the profile")(
      "batch", po::value(&batch)->default_value(32), "batch per GPU for points that give none")(
      "latency-us", po::value(&latency_us)->default_value(50),
      "one-way latency between nodes, microseconds")("shards", po::value(&shards),
                                                     "server shards (default: one per node, colocated)")(
      "predict", po::value(&predict_path),
      "also predict, not fit: measured points (compared with the fitted profile), or a scenario JSON "
      "(its points run on the fitted profile, with 95% intervals from the fit's covariance)")(
      "name", po::value(&name), "profile name (default: the output file's stem)")(
      "accept-poor-fit", po::bool_switch(&accept_poor),
      "write the profile even when the fit is poor: RMS relative residual above 10%, or a "
      "parameter stuck at the end of its range where its mechanism is impossible. Without it a "
      "poor fit is named on stderr, nothing is written, exit status 3; with it the fitted "
      "parameters' sources say so")(
      "quiet,q", po::bool_switch(&quiet), "no tables, no progress");
  add_all_iterations_option(desc, all_iterations);
  po::positional_options_description pos;
  pos.add("measurements", -1);
  po::variables_map vm;
  if (!parse("calibrate fit", args, desc, pos, vm,
             "MEASUREMENTS... --profile BASE --out FILE [--free a,b,...] [--engine simgrid]",
             cal::fit_parameter_table()))
    return 0;
  if (batch < 1 || batch > 65536)
    throw InputError("--batch", "", std::to_string(batch) + " is not a batch size",
                     "an integer in [1, 65536]");
  if (jobs < 1) throw InputError("--jobs", "", "must be at least 1", "an integer >= 1");
  if (restarts < 0) throw InputError("--restarts", "", "is negative", "an integer >= 0");
  if (vm.count("shards") && (shards < 1 || shards > limits::kMaxShards))
    throw InputError("--shards", "", std::to_string(shards) + " is not a shard count",
                     "an integer in [1, " + std::to_string(limits::kMaxShards) + "]");
  if (!(latency_us >= 0 && latency_us <= 1e6))
    throw InputError("--latency-us", "", "is not in range", "microseconds in [0, 1e6]");
  // Both files it writes, before the fit runs.
  check_output_file(out, "--out");
  check_output_file(cal::sidecar_path(out), "--out (its calibration record)");
  if (name.empty()) name = std::filesystem::path(out).stem().string();
  EngineRequest request = engine_request();
  request.quiet = quiet;
  request.all_iterations = all_iterations;
  const std::unique_ptr<Engine> engine = make_engine(engine_name, request);

  const MeasurementSet m = load_measurement_files(meas_paths, batch);
  std::string note;
  measured_profile(m, base_ref, "--profile", &note);  // the base given wins; a point naming another is said
  if (!note.empty()) std::cerr << "possim: warning: " << note << "\n";
  const Profile loaded = load_profile(base_ref, ".");
  std::vector<cal::SetParameter> held_at;
  for (const auto& s : sets) held_at.push_back(cal::parse_set_parameter(loaded, s));
  if (held_at.empty() && !set_why.empty())
    throw InputError("--set-why", "", "is given without --set", "--set NAME=VALUE with it, or neither");
  const Profile base = cal::set_parameters(loaded, held_at, set_why);
  cal::ClusterFitOptions opt;
  opt.engine = engine.get();
  opt.threads = jobs;
  opt.restarts = restarts;
  opt.progress = progress_line("fit", !quiet);
  opt.free.clear();
  std::stringstream ss(free_list);
  for (std::string item; std::getline(ss, item, ',');) {
    cal::check_fit_parameter(base, item);
    for (const auto& h : held_at) {
      if (h.name == item)
        throw InputError("--set", item, "is also in --free", "a parameter either set or fitted, not both");
      // The tensor-core peaks' factors share one source note, which a fit writes whole.
      const auto peak = [](const std::string& n) { return n == "tensor_core_scale" || n == "tf32_scale"; };
      if (peak(h.name) && peak(item))
        throw InputError("--set", h.name, "shares the tensor-core peaks' source with " + item + " in --free",
                         "set both or fit both");
    }
    opt.free.push_back(item);
  }
  for (const auto& s : starts) {
    const auto eq = s.find('=');
    if (eq == std::string::npos)
      throw InputError("--start", "", "'" + s + "' has no '='", "NAME=VALUE");
    const std::string key = s.substr(0, eq);
    cal::check_fit_parameter(base, key);
    const std::optional<double> parsed = parse_decimal(s.substr(eq + 1));
    const double v = parsed.value_or(0);
    if (!parsed || !(v > 0))
      throw InputError("--start", key, "'" + s.substr(eq + 1) + "' is not a positive number",
                       "NAME=VALUE > 0");
    opt.start[key] = v;
  }
  opt.cluster.latency_s = latency_us * 1e-6;
  opt.cluster.server_shards = shards;
  MeasurementSet held;
  Scenario predict_scenario;  // read before the fit: a broken one fails in a second, not after it
  const bool predict_points = !predict_path.empty() && !is_scenario_file(predict_path);
  if (predict_points) try {
      held = load_measurement_files({predict_path}, batch);
    } catch (const InputError& e) {
      // A point with nothing measured is what a scenario is for: say so.
      const std::string what = e.what();
      if (what.find("iteration_s: missing") == std::string::npos && what.find("no measurement column") == std::string::npos)
        throw;
      throw InputError(what + "; to predict points nobody measured, give --predict a scenario JSON instead (its "
                              "points run on the fitted profile, with 95% intervals)");
    }
  if (!predict_path.empty() && !predict_points) {
    predict_scenario = load_scenario(predict_path);
    require_one_model(predict_scenario, "possim calibrate fit --predict");
    // The fitted profile must be able to run it: its stacks and its precision.
    (void)with_profile(predict_scenario, base);
  }

  cal::ClusterFit f = cal::fit_cluster(base, m, opt);
  if (!quiet) std::cerr << "\n";
  f.fitted.name = name;
  const cal::FitVerdict verdict = cal::judge_cluster_fit(f);
  if (verdict.poor() && !accept_poor && !quiet) print_fit(f, m, *engine, base, std::cout);  // which points
  if (stop_for_poor_fit(verdict, accept_poor, "calibrate fit", out)) return kPoorFitExit;
  if (verdict.poor())
    for (const auto& n : f.names)
      for (std::string* src : cal::parameter_sources(f.fitted, n)) note_poor_fit(*src, verdict);
  std::vector<cal::PointResult> predicted;
  if (predict_points) predicted = cal::predict_points(f.fitted, held, opt.cluster, *engine, jobs);
  std::vector<Result> scenario_results;
  cal::SigmaAxes axes;
  if (!predict_path.empty() && !predict_points) {
    Profile fitted = f.fitted;
    fitted.path = out;  // where it is about to be written
    predict_scenario = with_profile(predict_scenario, fitted);
    scenario_results = run_sweep(predict_scenario, *engine, jobs);
    axes = add_intervals(predict_scenario, *engine, jobs, scenario_results, !quiet);
  }

  nlohmann::json sidecar = cal::fit_sidecar(f, m.path, engine->name(), base, opt.cluster, shards, predicted);
  if (verdict.poor()) sidecar["accepted_poor_fit"] = verdict.problems;
  for (const auto& h : held_at)  // not fitted: held at a value carried from elsewhere
    sidecar["held"].push_back({{"parameter", h.name}, {"value", h.value}, {"why", set_why}});
  if (!scenario_results.empty()) {
    nlohmann::json rows = nlohmann::json::array();
    for (const Result& r : scenario_results) rows.push_back(result_to_json(r));
    sidecar["predicted_scenario"] = {{"scenario", predict_path},
                                     {"interval_method", axes.empty() ? "none" : axes.method()},
                                     {"results", rows}};
  }
  cal::write_profile_with_sidecar(f.fitted, sidecar, out);

  if (!quiet) {
    print_fit(f, m, *engine, base, std::cout);
    if (!predicted.empty()) {
      std::cout << "\npredicted, not fitted (" << held.path << "):\n";
      print_points(std::cout, predicted);
    }
    if (!scenario_results.empty()) print_scenario_predictions(predict_scenario, scenario_results, axes, std::cout);
    std::cout << "wrote " << out << " and " << cal::sidecar_path(out) << "\n";
  }
  return 0;
}

}  // namespace possim::cli
