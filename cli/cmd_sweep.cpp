// possim sweep SWEEP: a cartesian grid of scenario points (model/sweep_grid.hpp), run in
// parallel, resumable, shardable (--shard i/n, mpirun); possim sweep merge DIR...: shards'
// folders put back together.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <mutex>
#include <thread>

#include "cli/commands.hpp"
#include "cli/intervals.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/output_folder.hpp"
#include "cli/progress.hpp"
#include "cli/sweep_shard.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/limits.hpp"
#include "model/run/output_file.hpp"
#include "model/run/parallel.hpp"
#include "model/run/point_store.hpp"
#include "model/run/result_io.hpp"
#include "model/run/sweep_grid.hpp"
#include "model/run/sweep_manifest.hpp"

namespace possim::cli {

namespace {

constexpr int kMaxJobs = 1024;  // threads, each waiting for one simulation process

std::string points_file(const std::string& folder) { return folder + "/points.jsonl"; }

// results.csv, results.json and sweep.json of the manifest's points (and, for a folder
// put together from shards, their points.jsonl), each written whole: through a temporary
// file that an interrupt removes, renamed into place.
void write_sweep_folder(const std::string& folder, const SweepManifest& m, const PointRecords& records,
                        bool with_points) {
  std::vector<std::pair<std::string, std::string>> files = {
      {"results.csv", sweep_results_csv(m, records)},
      {"results.json", sweep_results_json(m, records)},
      {"sweep.json", manifest_json(m)}};
  if (with_points) files.emplace_back("points.jsonl", sweep_points_jsonl(m, records));
  for (const auto& [name, contents] : files) write_file_atomic(folder + "/" + name, contents);
}

// Rank 0 under mpirun: waits until every other rank's folder holds its shard's points,
// then writes the whole sweep into `out`. A rank whose points file does not grow for
// `stall_s` seconds ends the wait (mpirun started fewer ranks than it says, or the rank
// failed without taking mpirun down): rank 0's own points are kept for a rerun or a merge.
void gather(const SweepGrid& grid, const Shard& me, const std::string& out, PointRecords records,
            double stall_s, bool quiet) {
  using clock = std::chrono::steady_clock;
  for (int r = 0; r < me.count; ++r) {
    if (r == me.index) continue;
    const SweepManifest theirs = manifest_of(grid, r, me.count);
    Shard shard = me;
    shard.index = r;
    const std::string file = points_file(out + "/" + shard.folder_name());
    PointRecords got;
    off_t seen = -1;
    clock::time_point grew = clock::now();
    // Done at once for a shard without points (more ranks than points): it writes no file.
    for (bool said = false; !theirs.missing(got).empty();) {
      struct stat st {};
      const off_t size = ::stat(file.c_str(), &st) == 0 ? st.st_size : -1;
      if (size != seen) {  // read again only once it has grown
        seen = size;
        grew = clock::now();
        got = read_points(file, theirs.record_check());
        continue;
      }
      if (std::chrono::duration<double>(clock::now() - grew).count() > stall_s)
        throw std::runtime_error("sweep: rank 0 waited " + fixed(stall_s, 0) + " s for rank " + std::to_string(r) +
                                 "'s points in " + file + " and no more came (mpirun started fewer ranks than "
                                 "OMPI_COMM_WORLD_SIZE says, or rank " + std::to_string(r) +
                                 " failed); what every rank finished is kept: rerun the sweep to resume, or merge "
                                 "the shard folders with `possim sweep merge` (--gather-timeout sets the wait)");
      if (!quiet && !said) std::cerr << "sweep: rank 0 waits for rank " << r << "'s points in " << file << "\n";
      said = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    records.insert(got.begin(), got.end());
  }
  write_sweep_folder(out, manifest_of(grid, 0, 1), records, /*with_points=*/true);
}

int sweep_merge(const std::vector<std::string>& args) {
  handle_interrupts();
  po::options_description desc("options");
  std::vector<std::string> dirs;
  std::string out;
  bool quiet = false;
  desc.add_options()("dirs", po::value(&dirs)->required()->multitoken(), "shard folders of one sweep")(
      "out", po::value(&out), "folder for the whole sweep (default results/NAME/ENGINE)")(
      "quiet,q", po::bool_switch(&quiet), "no summary");
  po::positional_options_description pos;
  pos.add("dirs", -1);
  po::variables_map vm;
  if (!parse("sweep merge", args, desc, pos, vm, "DIR... [--out DIR]")) return 0;

  std::vector<SweepManifest> manifests;
  PointRecords records;
  for (const auto& dir : dirs) {
    manifests.push_back(read_manifest(dir + "/sweep.json"));
    const SweepManifest& m = manifests.back();
    if (m.grid_key() != manifests.front().grid_key() || m.engine != manifests.front().engine)
      throw InputError(dir + "/sweep.json", "", "is not a shard of the same sweep as " + dirs.front() +
                                                    " (other points or another engine)",
                       "folders of one sweep file run with one engine and one possim");
    const PointRecords got = read_points(points_file(dir), m.record_check());
    records.insert(got.begin(), got.end());
  }
  SweepManifest whole = manifests.front();
  whole.shard_index = 0;
  whole.shard_count = 1;
  whole.provenance["merged_from"] = dirs;
  if (!vm.count("out")) out = "results/" + whole.name + "/" + whole.engine;
  check_output_path(out, vm.count("out") ? "--out" : "results folder");
  write_sweep_folder(out, whole, records, /*with_points=*/true);
  if (!quiet)
    std::cout << "merged " << whole.points.size() << " points of sweep " << whole.name << " from "
              << dirs.size() << " folders into " << out << "\n";
  return 0;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  if (!args.empty() && args.front() == "merge") return sweep_merge({args.begin() + 1, args.end()});
  handle_interrupts();  // before any thread starts
  po::options_description desc("options");
  std::string sweep_path, engine_name, out, shard_text;
  bool quiet = false, all_iterations = false;
  int jobs = 0;
  double gather_timeout_s = 0;
  desc.add_options()("sweep", po::value(&sweep_path)->required(), "sweep JSON file");
  add_engine_option(desc, engine_name);
  desc.add_options()("out", po::value(&out), "folder of the sweep (default results/NAME/ENGINE; a shard's: .../shard-I-of-N)")(
      "jobs,j", po::value(&jobs), "points simulated at once (default: the cores, shared among mpirun's ranks)")(
      "shard", po::value(&shard_text), "run only points i, i+n, i+2n, ... (i/n); merge with `possim sweep merge`")(
      "gather-timeout", po::value(&gather_timeout_s),
      "under mpirun: seconds rank 0 waits for a rank whose points stop coming (default: 10x its slowest "
      "point, at least 300)");
  add_all_iterations_option(desc, all_iterations);
  desc.add_options()("quiet,q", po::bool_switch(&quiet), "no progress, no summary");
  po::positional_options_description pos;
  pos.add("sweep", 1);
  po::variables_map vm;
  if (!parse("sweep", args, desc, pos, vm, "SWEEP [--engine E] [--out DIR] [--shard I/N]\n       possim sweep merge DIR... [--out DIR]"))
    return 0;

  if (!engine_named(engine_name).capabilities.runs_sweeps)
    throw InputError("--engine", engine_name + " does not run sweeps",
                     engine_choices([](const EngineCapabilities& c) { return c.runs_sweeps; }));
  EngineRequest request = engine_request();
  request.all_iterations = all_iterations;
  request.quiet = quiet;
  const auto engine = make_engine(engine_name, request);
  const std::optional<Shard> mpi = mpi_shard();
  if (mpi && mpi->count > 1 && vm.count("shard"))
    throw InputError("--shard", "", "given under mpirun, which shares the points among its ranks itself",
                     "either --shard or mpirun");
  const Shard shard = vm.count("shard") ? parse_shard(shard_text) : mpi ? *mpi : Shard{};
  if (!vm.count("jobs"))
    jobs = std::max(1, int(std::max(1u, std::thread::hardware_concurrency())) / shard.local_ranks);
  if (jobs < 1 || jobs > kMaxJobs)
    throw InputError("--jobs", "", std::to_string(jobs) + " is not a job count",
                     "an integer in [1, " + std::to_string(kMaxJobs) + "]");

  if (vm.count("gather-timeout") && !(gather_timeout_s >= 1 && gather_timeout_s <= 1e6))
    throw InputError("--gather-timeout", "", "is not in range", "seconds in [1, 1e6]");
  const SweepGrid grid = load_sweep(sweep_path, RunIdentity{engine->name(), all_iterations});
  for (const auto& caveat : grid.caveats) std::cerr << "possim: warning: some points: " << caveat << "\n";
  if (!vm.count("out")) out = "results/" + grid.name + "/" + engine->name();
  // A shard's own folder: under the sweep's, unless --out names it (a batch job's shard).
  const bool own_folder = shard.count > 1 && (shard.mpi || !vm.count("out"));
  const std::string folder = own_folder ? out + "/" + shard.folder_name() : out;
  check_output_path(folder, vm.count("out") ? "--out" : "results folder");

  const SweepManifest m = manifest_of(grid, shard.index, shard.count);
  PointRecords records = read_points(points_file(folder), m.record_check());
  const std::vector<std::size_t> todo = m.missing(records);
  std::size_t mine = 0;
  for (std::size_t i = 0; i < grid.points.size(); ++i) mine += m.in_shard(i);
  const std::string label = shard.count > 1 ? "sweep " + shard.folder_name() : "sweep";
  if (!quiet) {
    std::cerr << "sweep " << grid.name << ": " << grid.points.size() << " points";
    if (grid.merged) std::cerr << " (" << grid.merged << " more were the same point: single runs on one node)";
    if (shard.count > 1) std::cerr << ", " << mine << " in " << shard.folder_name();
    if (mine > todo.size()) std::cerr << ", " << mine - todo.size() << " already done in " << folder;
    std::cerr << "\n";
  }

  // Each point, once done, is appended whole to points.jsonl: an interrupt waits for the
  // line, and a rerun skips the point.
  ProgressLine line(label, mine, mine - todo.size(), !quiet);
  PointWriter writer(points_file(folder));
  BaselineCache baselines;
  std::mutex mutex;
  std::size_t done = mine - todo.size();
  double slowest_point_s = 0;
  // A fitted profile's 95% interval, as possim run gives it (the point rerun at its sigma points).
  RefinePoint refine;
  if (!engine_named(engine->name()).capabilities.measures)
    refine = [&](const Scenario& s, const SweepPoint& p, Result& r) { add_point_interval(s, p, *engine, r); };
  parallel_for(todo.size(), jobs, [&](std::size_t t) {
    const std::size_t i = todo[t];
    const auto started = std::chrono::steady_clock::now();
    const Result r = run_grid_point(grid, i, *engine, PointOptions{}, baselines, refine);
    const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const std::string text = point_line(grid.points[i].key, grid.points[i].values, r);
    const std::lock_guard<std::mutex> lock(mutex);
    slowest_point_s = std::max(slowest_point_s, took_s);
    without_interrupt([&] { writer.append(text); });
    records[grid.points[i].key] = nlohmann::json::parse(text);
    line.update(++done, r);
  });
  line.finish();
  write_sweep_folder(folder, m, records, /*with_points=*/false);
  if (shard.mpi && shard.count > 1) {
    if (shard.index != 0) return 0;
    const double stall_s = vm.count("gather-timeout") ? gather_timeout_s : std::max(300.0, 10 * slowest_point_s);
    gather(grid, shard, out, std::move(records), stall_s, quiet);
  }
  const bool gathered = shard.mpi && shard.count > 1;
  if (!quiet)
    std::cout << "sweep " << grid.name << " (" << engine->name() << " engine): wrote "
              << (gathered ? out : folder) << "/results.csv and results.json, "
              << (shard.count > 1 && !gathered ? mine : grid.points.size()) << " points\n";
  return 0;
}

}  // namespace possim::cli
