// possim run SCENARIO: every strategy x nodes x bandwidth point, a table for people,
// JSON and CSV for programs, and optionally a Chrome trace per point (or per chosen point).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <thread>

#include "model/analytic/analytic_engine.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/intervals.hpp"
#include "cli/options.hpp"
#include "cli/output_folder.hpp"
#include "cli/progress.hpp"
#include "cli/table.hpp"
#include "live/live_settings.hpp"
#include "model/input/error.hpp"
#include "model/input/scenario.hpp"
#include "model/plan/transport.hpp"
#include "model/run/provenance.hpp"
#include "model/run/result_io.hpp"
#include "model/run/sweep.hpp"
#include "model/trace/chrome_trace.hpp"
#include "model/trace/trace_points.hpp"

namespace possim::cli {

namespace {

constexpr int kMaxJobs = 1024;  // threads, each waiting for one simulation process
// More traces than this in one run is rarely meant (the shipped scenario: 24, 57 MB).
constexpr std::size_t kTracesBeforeWarning = 4;

// An engine that runs real processes on this machine refuses a cluster larger than it
// hosts before any point runs (under mpirun, each rank is one node and hosts one).
void check_local_nodes(const Scenario& s, const EngineInfo& e, const std::string& coordinator) {
  const int max = e.capabilities.max_local_nodes;
  if (max == 0 || !coordinator.empty()) return;
  for (const SweepPoint& p : sweep_points(s))
    if (const int n = s.cluster(p.nodes, p.nic_gbps).total_nodes(); n > max)
      throw InputError(s.path, "cluster.nodes",
                       std::to_string(n) + " nodes is more than a local " + e.name + " run can host",
                       "at most " + std::to_string(max) + " nodes with --engine " + e.name + " on one machine");
}

// A live run with arithmetic compute trained the model for real: its loss, and whether
// every worker ended with the same parameters.
void print_training(const Scenario& s, const std::vector<Result>& results, std::ostream& out) {
  Table t({"strategy", "nodes", "Gbit/s", "first loss", "last loss", "replicas"});
  bool any = false;
  for (const Result& r : results) {
    if (r.training_loss.empty()) continue;
    any = true;
    t.add({r.strategy, std::to_string(r.cluster.nodes), fixed(r.cluster.nic_gbps, 1), fixed(r.training_loss.front(), 4),
           fixed(r.training_loss.back(), 4), r.replicas_agree ? "agree" : "DIFFER"});
  }
  if (!any) return;
  out << "\ntraining for real (arithmetic compute, SGD at learning rate " << live::live_settings(s).learning_rate
      << "): cross-entropy of each iteration's global batch\n\n";
  t.print(out);
}

void print_table(const Scenario& s, const std::vector<Result>& results, const calibrate::SigmaAxes& axes,
                 std::ostream& out) {
  out << s.name << ": " << s.network.name << ", batch " << s.batch_per_gpu << "/GPU, "
      << s.gpus_per_node << " GPU/node, engine " << results.front().engine << ", profile "
      << s.profile.name << ", precision " << to_string(s.numerics.precision) << " (gradients "
      << to_string(s.numerics.gradient) << ")\n";
  out << "profile " << s.profile.name << ": " << s.profile.provenance_line() << "\n";
  out << "network " << describe(transport_rates(s.profile, s.cluster(s.nodes.front(), s.nic_gbps.front())));
  if (s.nics_per_node > 1)
    out << "; " << s.nics_per_node << " NICs per node, rail-aligned (hier_allreduce spreads over min(NICs, GPUs), "
        << "a leader GPU's traffic uses one)";
  out << "\n";
  // Poseidon's plans depend on the rule that picks each FC layer's scheme: say it unless it is
  // the paper's (ATC'17).
  const bool poseidon = std::find(s.strategies.begin(), s.strategies.end(), "poseidon") != s.strategies.end();
  if (poseidon && s.options.best_scheme == BestSchemeRule::sacp16)
    out << "poseidon: BestScheme sacp16 (SFB against Adam's centralized factors, by bytes)\n";
  if (poseidon && s.options.best_scheme == BestSchemeRule::timed)
    out << "poseidon: BestScheme timed (each FC layer's SFB or PS by the analytic engine's iteration of the whole "
           "plan, kept where 3% shorter than ATC'17's; possim explain gives both times)\n";
  out << "single GPU: " << fixed(results.front().single_gpu_images_per_s, 1) << " images/s\n\n";
  // Where the time goes, as shares of the iteration: only the shares some point has.
  std::vector<TimeShare> shares;
  for (std::size_t i = 0; i < kTimeShares; ++i)
    for (const Result& r : results)
      if (r.breakdown.s[i] > 0.0005 * r.iteration_s) {
        shares.push_back(TimeShare(i));
        break;
      }
  const bool intervals = std::any_of(results.begin(), results.end(), [](const Result& r) { return bool(r.interval); });
  std::vector<std::string> head = {"strategy", "nodes", "Gbit/s", "images/s"};
  if (intervals) head.push_back("95% interval");
  for (const char* h : {"speedup", "efficiency", "stall", "iter s"}) head.push_back(h);
  for (TimeShare x : shares) head.push_back(short_name(x));
  Table t(head);
  std::string last;
  for (const Result& r : results) {
    if (!last.empty() && r.strategy != last) t.separator();
    last = r.strategy;
    std::vector<std::string> row = {r.strategy + (r.partial() ? " (partial)" : ""), std::to_string(r.cluster.nodes),
                                    fixed(r.cluster.nic_gbps, 1), fixed(r.images_per_s, 1)};
    if (intervals) row.push_back(images_interval(r));
    for (const std::string& cell : {fixed(r.speedup, 2) + "x", percent(r.efficiency), percent(r.stall_share()),
                                    fixed(r.iteration_s, 4)})
      row.push_back(cell);
    for (TimeShare x : shares) row.push_back(percent(r.iteration_s > 0 ? r.breakdown[x] / r.iteration_s : 0));
    t.add(row);
  }
  t.print(out);
  out << "\nstall = the share of the iteration worker 0's GPU is idle (the iteration less its compute, SF "
         "rebuild and quantization)\n";
  if (!shares.empty())
    out << "where the time goes (shares of the iteration, adding up to it: what worker 0's GPU runs, and what it waits for when idle): ";
  for (std::size_t i = 0; i < shares.size(); ++i)
    out << (i ? ", " : "") << short_name(shares[i]) << " = " << share_meaning(shares[i]);
  if (!shares.empty()) out << "\n";
  if (intervals) out << "\n" << axes.method() << " (results.csv: *_lo, *_hi)\n";
  print_training(s, results, out);
  std::size_t dropped = 0, points = 0;
  for (const Result& r : results)
    if (r.dropped_worker_steps() > 0) dropped += r.dropped_worker_steps(), ++points;
  if (dropped > 0)
    out << "\nstragglers dropped from their steps: " << dropped << " worker-iterations over " << points
        << " points (results.json: dropped_workers, by iteration)\n";
  if (!sweep_note(s).empty()) out << "\n" << sweep_note(s) << "\n";
  // Say when an engine reported iterations from a repeated one (sim::SimGridOptions and
  // model/analytic/repeat.hpp explain why exact).
  std::size_t reused = 0;
  int simulated = 0;
  for (const Result& r : results)
    if (r.simulated_iterations < r.iterations) {
      ++reused;
      simulated = std::max(simulated, r.simulated_iterations);
    }
  if (reused > 0)
    out << "\n" << reused << " of " << results.size() << " points: iterations repeated exactly after the first "
        << simulated << " of " << results.front().iterations
        << " (barrier-separated, same timings); --all-iterations simulates each\n";
}

// The trace options: which points, which workers. --trace-point and --trace-workers
// imply --trace.
PointOptions trace_options(const Scenario& s, const po::variables_map& vm, bool trace,
                           const std::vector<std::string>& points, const std::string& workers) {
  PointOptions o;
  o.timeline = trace || !points.empty() || vm.count("trace-workers");
  if (!o.timeline) return o;
  const std::vector<SweepPoint> sweep = sweep_points(s);
  o.trace_points = parse_trace_points(points, sweep, "--trace-point");
  if (vm.count("trace-workers")) o.trace_workers = WorkerSelection::parse(workers, "--trace-workers");
  int most = 0;
  for (const SweepPoint& p : sweep)
    if (o.traces(p)) most = std::max(most, p.nodes);
  if (o.trace_workers.traced(most).empty())
    throw InputError("--trace-workers", "", "'" + workers + "' selects no worker of the traced points",
                     "indices below " + std::to_string(most));
  const std::size_t traced = o.trace_points.empty() ? sweep.size() : o.trace_points.size();
  if (traced > kTracesBeforeWarning)
    std::cerr << "possim: warning: --trace writes " << traced
              << " traces, one per point (a large sweep makes hundreds of MB); "
                 "--trace-point STRATEGY:NODES:GBPS picks points\n";
  return o;
}

// Writes the traces into the output folder and frees the timelines. Returns what to
// print: one line per trace with the workers it holds, or a summary when there are many.
std::vector<std::string> write_traces(const Scenario& s, const PointOptions& o, std::vector<Result>& results,
                                      OutputFolder& out, const std::string& out_dir, bool several_models) {
  std::vector<std::string> lines, partial;  // partial: the traces that leave workers out
  double total_bytes = 0;
  for (Result& r : results) {
    if (r.partial() || !o.traces(SweepPoint{r.strategy, r.cluster.nodes, r.cluster.nic_gbps})) continue;
    const TraceMeta meta = trace_meta(s, r, o.trace_workers);
    // Several models trace the same points: the model in the name keeps their files apart.
    const std::string name = several_models ? "trace_" + r.model + trace_file_name(r).substr(5) : trace_file_name(r);
    const std::string text = chrome_trace(r.timeline, meta);
    out.write(name, text);
    r.timeline = {};
    total_bytes += double(text.size());
    lines.push_back("wrote " + out_dir + "/" + name + " (" + fixed(double(text.size()) / 1e6, 1) + " MB; " +
                    meta.workers + ")");
    if (meta.workers.find("left out") != std::string::npos) partial.push_back(name + ": " + meta.workers);
  }
  if (lines.empty()) return lines;
  if (lines.size() > 2 * kTracesBeforeWarning) {
    const std::size_t files = lines.size();
    lines = {"wrote " + std::to_string(files) + " Chrome traces (" + fixed(total_bytes / 1e6, 1) + " MB) as " +
             out_dir + "/trace_*.json"};
    if (!partial.empty())
      lines.push_back(std::to_string(partial.size()) + " of them leave workers out (--trace-workers all keeps "
                      "them), e.g. " + partial.front());
  }
  lines.push_back("open them in Perfetto (ui.perfetto.dev) or chrome://tracing");
  return lines;
}

// results.json's "model": the model's name, or the list of them when "model" is a list.
nlohmann::json model_names(const std::vector<Scenario>& models) {
  if (models.size() == 1) return models.front().network.name;
  nlohmann::json names = nlohmann::json::array();
  for (const Scenario& m : models) names.push_back(m.network.name);
  return names;
}

// The provenance of the first model's scenario; with several models, "model" lists each
// one's (name, ref, sha256), as a sweep over models does.
nlohmann::json run_provenance(const std::vector<Scenario>& models, const std::string& engine) {
  nlohmann::json p = provenance_json(models.front(), engine);
  if (models.size() == 1) return p;
  p["model"] = nlohmann::json::array();
  for (const Scenario& m : models) p["model"].push_back(provenance_json(m, engine)["model"]);
  return p;
}

}  // namespace

int cmd_run(const std::vector<std::string>& args) {
  handle_interrupts();  // before the sweep's threads start
  po::options_description desc("options");
  std::string scenario_path, engine_name, out_dir, trace_workers, coordinator;
  std::vector<std::string> trace_points;
  bool trace = false, quiet = false, all_iterations = false, reduce = false, no_reduce = false, no_interval = false;
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  desc.add_options()("scenario", po::value(&scenario_path)->required(), "scenario JSON file");
  add_engine_option(desc, engine_name);
  desc.add_options()("out", po::value(&out_dir),
                     "folder for results.json, results.csv and traces (default results/NAME/ENGINE)")(
      "trace", po::bool_switch(&trace), "also write a Chrome trace per point into the output folder")(
      "trace-point", po::value(&trace_points)->composing(),
      "STRATEGY:NODES:GBPS: trace only this point (repeatable; implies --trace)")(
      "trace-workers", po::value(&trace_workers),
      ("workers to trace, e.g. 0-3,7, or all (default: the first " + std::to_string(kTraceWorkerCap) +
       "; implies --trace)").c_str())(
      "jobs,j", po::value(&jobs)->default_value(jobs), "points simulated at once (processes)");
  add_all_iterations_option(desc, all_iterations);
  add_reduce_options(desc, reduce, no_reduce);
  std::string network_solver = "star";
  desc.add_options()("network-solver", po::value(&network_solver)->default_value(network_solver),
                     "SimGrid: what shares the NIC links among flows: star (possim's max-min solver for the "
                     "switch, a solve over the moving node pairs when flows start or land) or lmm (SimGrid's own, a Comm per flow; the same model, "
                     "slower: for checking)");
  desc.add_options()("coordinator", po::value(&coordinator),
                     "HOST:PORT: with --engine live under mpirun, where the ranks meet (rank r is node r)");
  desc.add_options()("no-interval", po::bool_switch(&no_interval),
                     "with a fitted profile: no 95% intervals (they rerun the scenario twice per principal "
                     "axis of the fit's covariance)");
  desc.add_options()("quiet,q", po::bool_switch(&quiet), "no table, no progress");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse("run", args, desc, pos, vm, "SCENARIO [--engine E] [--out DIR] [--trace] [--trace-point S:N:G]... [--trace-workers LIST]"))
    return 0;

  // "model" may be a list: each model's points run in turn, as a sweep axis would.
  const std::vector<Scenario> models = per_model(load_scenario(scenario_path));
  const Scenario& s = models.front();
  const EngineInfo& info = engine_named(engine_name);
  if (models.size() > 1 && info.capabilities.measures)  // its nodes are made for one model's kernels
    throw InputError(s.path, "model", "is a list of " + std::to_string(models.size()) + " models",
                     "one model with --engine " + info.name + " (a list with a predicting engine)");
  EngineRequest request = engine_request(&s);
  request.all_iterations = all_iterations;
  request.reduce = reduce_mode(reduce, no_reduce);
  request.coordinator = coordinator;
  request.quiet = quiet;
  request.network_solver = network_solver;
  const auto engine = make_engine(engine_name, request);
  if (!engine->writes_results()) {  // a rank serving its node in a live run under mpirun
    engine->serve();
    return 0;
  }
  // However the run ends, ranks serving this one are told to (end_run cannot throw out of a
  // destructor: what it fails to reach, mpirun ends with this process).
  struct EndRun {
    const Engine& e;
    ~EndRun() {
      try {
        e.end_run();
      } catch (const std::exception& x) {
        std::cerr << "possim: warning: " << x.what() << "\n";
      }
    }
  } end_run{*engine};
  check_local_nodes(s, info, coordinator);
  // An engine that measures occupies the whole machine (its processes, its links): one
  // point at a time.
  if (info.capabilities.measures) jobs = 1;
  // One folder per engine: an analytic run does not overwrite a SimGrid one.
  if (!vm.count("out")) out_dir = "results/" + s.name + "/" + engine->name();  // --out '' is refused as empty
  if (jobs < 1 || jobs > kMaxJobs)
    throw InputError("--jobs", "", std::to_string(jobs) + " is not a job count",
                     "an integer in [1, " + std::to_string(kMaxJobs) + "]");
  PointOptions run = trace_options(s, vm, trace, trace_points, trace_workers);
  OutputFolder out(out_dir, vm.count("out") ? "--out" : "results folder");  // checked before the sweep
  if (const std::string caveat = info.caveat ? info.caveat(s) : ""; !caveat.empty())
    std::cerr << "possim: warning: " << caveat << "\n";
  if (const std::string caveat = s.profile.unmeasured_caveat(); !caveat.empty())
    std::cerr << "possim: warning: " << caveat << "\n";

  // Progress on stderr when a person watches it (a terminal): points done, time left, the last one.
  const std::size_t per_model_points = sweep_points(s).size();
  ProgressLine line("run", per_model_points * models.size(), 0, !quiet, /*terminal_only=*/true);
  std::size_t before = 0;  // points of the models already run
  const auto progress = [&](std::size_t done, std::size_t, const Result& r) {
    line.update(before + done, r);
  };
  std::vector<std::vector<Result>> by_model;  // results, per model run
  std::string failure;  // a live point failed: what came before it, and what it measured, are kept
  for (const Scenario& m : models) {
    try {
      by_model.push_back(run_sweep(m, *engine, jobs, progress, run));
    } catch (const SweepFailure& f) {
      by_model.push_back(f.kept);
      failure = f.what();
      break;
    }
    before += per_model_points;
  }
  line.finish();
  // Error bars from the fit's covariance, through the same engine. A measuring engine's
  // figures are measurements, not predictions from the fitted parameters.
  calibrate::SigmaAxes axes;
  if (no_interval || !failure.empty()) {
    // none asked for, or the run stopped
  } else if (s.profile.fit_covariance.empty()) {
    if (!quiet && !info.capabilities.measures)
      std::cerr << "possim: note: " << calibrate::no_covariance_note(s.profile) << "\n";
  } else {
    if (info.capabilities.measures) {
      if (!quiet)
        std::cerr << "possim: note: the " << engine->name() << " engine measures: no interval from profile "
                  << s.profile.name << "'s fit covariance\n";
    } else {
      for (std::size_t i = 0; i < by_model.size(); ++i)
        if (const calibrate::SigmaAxes a = add_intervals(models[i], *engine, jobs, by_model[i], !quiet); !a.empty())
          axes = a;
      if (axes.empty() && !quiet)
        std::cerr << "possim: note: no interval: profile " << s.profile.name
                  << "'s fit determined none of the parameters this scenario reads\n";
    }
  }
  std::vector<Result> results;
  for (const std::vector<Result>& part : by_model) results.insert(results.end(), part.begin(), part.end());

  nlohmann::json j = {{"scenario", s.name},
                      {"scenario_path", s.path},
                      {"model", model_names(models)},
                      {"profile", s.profile.name},
                      {"precision", to_string(s.numerics.precision)},
                      {"gradient_dtype", to_string(s.numerics.gradient)},
                      {"transport", to_string(s.transport)},
                      {"engine", engine->name()},
                      {"seed", s.seed},
                      {"provenance", run_provenance(models, engine->name())},
                      {"results", nlohmann::json::array()}};
  if (!failure.empty()) j["failure"] = failure;
  if (!axes.empty())
    j["uncertainty"] = {{"method", axes.method()},
                        {"parameters", axes.parameters},
                        {"reruns", axes.reruns()},
                        {"covariance_source", s.profile.fit_covariance.source}};
  // The results go in as text (append_result_json: a third of an analytic run was their DOM).
  j["results"] = nullptr;
  const std::string head = j.dump(2), slot = "\n  \"results\": null";
  const std::size_t at = head.find(slot) + slot.size() - 4;
  std::string text = head.substr(0, at);
  text.reserve(head.size() + results.size() * 20000);
  text += results.empty() ? "[" : "[\n    ";
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (i > 0) text += ",\n    ";
    append_result_json(text, results[i], 2);
  }
  text += results.empty() ? "]" : "\n  ]";
  text += head.substr(at + 4);
  text += '\n';  // in place: a copy of the whole text was 7% of an analytic run (perf)
  out.write("results.json", text);
  out.write("results.csv", results_csv(results));
  const std::vector<std::string> trace_lines = write_traces(s, run, results, out, out_dir, models.size() > 1);
  out.commit();
  if (const auto flagged = std::count_if(results.begin(), results.end(), analytic_may_differ); flagged > 0)
    std::cerr << "possim: warning: " << analytic_imbalance_warning(std::size_t(flagged), results.size()) << "\n";

  if (!quiet) {
    for (std::size_t i = 0; i < by_model.size(); ++i) {
      if (by_model[i].empty()) continue;
      if (i > 0) std::cout << "\n";
      print_table(models[i], by_model[i], axes, std::cout);
    }
    std::cout << "\nwrote " << out_dir << "/results.json and " << out_dir << "/results.csv\n";
    for (const std::string& line : trace_lines) std::cout << line << "\n";
  }
  if (!failure.empty())
    throw std::runtime_error(failure + "; the points before it, and its completed iterations (\"partial\": true), are in " +
                             out_dir + "/results.json");
  return 0;
}

}  // namespace possim::cli
