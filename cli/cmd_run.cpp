// possim run SCENARIO: every strategy x nodes x bandwidth point, a table for people,
// JSON and CSV for programs, and optionally a Chrome trace per point.
#include <cstdio>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/output_folder.hpp"
#include "cli/progress.hpp"
#include "cli/table.hpp"
#include "model/error.hpp"
#include "model/provenance.hpp"
#include "model/result_io.hpp"
#include "model/scenario.hpp"
#include "model/sweep.hpp"

namespace possim::cli {

namespace {

constexpr int kMaxJobs = 1024;  // threads, each waiting for one simulation process

void print_table(const Scenario& s, const std::vector<Result>& results, std::ostream& out) {
  out << s.name << ": " << s.network.name << ", batch " << s.batch_per_gpu << "/GPU, "
      << s.gpus_per_node << " GPU/node, engine " << results.front().engine << ", profile "
      << s.profile.name << "\n";
  out << "single GPU: " << fixed(results.front().single_gpu_images_per_s, 1) << " images/s\n\n";
  Table t({"strategy", "nodes", "Gbit/s", "images/s", "speedup", "efficiency", "stall", "iter s"});
  std::string last;
  for (const Result& r : results) {
    if (!last.empty() && r.strategy != last) t.separator();
    last = r.strategy;
    t.add({r.strategy, std::to_string(r.cluster.nodes), fixed(r.cluster.nic_gbps, 1),
           fixed(r.images_per_s, 1), fixed(r.speedup, 2) + "x", percent(r.efficiency),
           percent(r.stall_share()), fixed(r.iteration_s, 4)});
  }
  t.print(out);
  if (!sweep_note(s).empty()) out << "\n" << sweep_note(s) << "\n";
  // Say when SimGrid reported iterations from a repeated one (RunOptions explains why exact).
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

}  // namespace

int cmd_run(const std::vector<std::string>& args) {
  handle_interrupts();  // before the sweep's threads start
  po::options_description desc("options");
  std::string scenario_path, engine_name, out_dir;
  bool trace = false, quiet = false, all_iterations = false;
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  desc.add_options()("scenario", po::value(&scenario_path)->required(), "scenario JSON file");
  add_engine_option(desc, engine_name);
  desc.add_options()("out", po::value(&out_dir), "folder for results.json and results.csv (default results/NAME/ENGINE)")(
      "trace", po::bool_switch(&trace), "also write a Chrome trace per point under traces/generated/")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "points simulated at once (processes)");
  add_all_iterations_option(desc, all_iterations);
  desc.add_options()("quiet,q", po::bool_switch(&quiet), "no table, no progress");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse("run", args, desc, pos, vm, "SCENARIO [--engine E] [--out DIR] [--trace]")) return 0;

  const Scenario s = load_scenario(scenario_path);
  const auto engine = make_engine(engine_name);
  // One folder per engine: an analytic run does not overwrite a SimGrid one.
  if (out_dir.empty()) out_dir = "results/" + s.name + "/" + engine->name();
  if (jobs < 1 || jobs > kMaxJobs)
    throw InputError("--jobs", "", std::to_string(jobs) + " is not a job count",
                     "an integer in [1, " + std::to_string(kMaxJobs) + "]");
  OutputFolder out(out_dir, vm.count("out") ? "--out" : "results folder");  // checked before the sweep
  if (engine->name() == std::string("analytic") && !analytic_caveat(s).empty())
    std::cerr << "possim: warning: " << analytic_caveat(s) << "\n";

  // Progress on stderr when a person watches it (a terminal): points done, time left, the last one.
  ProgressLine line("run", sweep_points(s).size(), 0, !quiet, /*terminal_only=*/true);
  const auto progress = [&](std::size_t done, std::size_t, const Result& r) {
    line.update(done, result_label(r));
  };
  std::vector<Result> results = run_sweep(s, *engine, jobs, progress, PointOptions{trace, all_iterations});
  line.finish();

  nlohmann::json j = {{"scenario", s.name},
                      {"scenario_path", s.path},
                      {"model", s.network.name},
                      {"profile", s.profile.name},
                      {"engine", engine->name()},
                      {"seed", s.seed},
                      {"provenance", provenance_json(s, engine->name())},
                      {"results", nlohmann::json::array()}};
  for (const Result& r : results) j["results"].push_back(result_to_json(r));
  out.write("results.json", j.dump(2) + "\n");
  out.write("results.csv", results_csv(results));
  out.commit();
  if (trace)
    for (Result& r : results) {
      const std::string path = "traces/generated/" + s.name + "_" + r.strategy + "_" +
                               std::to_string(r.cluster.nodes) + "n_" + fixed(r.cluster.nic_gbps, 0) +
                               "g_" + r.engine + ".json";
      write_file_atomic(path, chrome_trace(r.timeline, s.name + " " + r.strategy + " " +
                                                           std::to_string(r.cluster.nodes) + " nodes (" +
                                                           r.engine + ")").dump());
      r.timeline.clear();
    }

  if (!quiet) {
    print_table(s, results, std::cout);
    std::cout << "\nwrote " << out_dir << "/results.json and " << out_dir << "/results.csv\n";
    if (trace) std::cout << "wrote Chrome traces under traces/generated/ (open in Perfetto)\n";
  }
  return 0;
}

}  // namespace possim::cli
