#include "sim/simgrid_engine.hpp"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simgrid/s4u.hpp>

#include "model/input/error.hpp"
#include "model/plan/plan_check.hpp"
#include "model/run/child_processes.hpp"
#include "model/run/fork_gate.hpp"
#include "model/run/result_io.hpp"
#include "sim/executor.hpp"
#include "sim/fold.hpp"
#include "sim/progress.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

namespace {

// How a run of `plan` under `sim` folds (sim/fold.hpp); throws for --reduce where it cannot.
FoldChoice fold_of(const SyncPlan& plan, const SimGridOptions& sim, std::string* why_not = nullptr) {
  // One worker (the single-GPU baseline too): nothing to fold, and nothing to refuse.
  if (sim.reduce == SimGridOptions::Reduce::off || plan.workers < 2) return {};
  FoldChoice c = choose_fold(plan, sim.network);
  if (why_not != nullptr) *why_not = c.why_not;
  if (sim.reduce == SimGridOptions::Reduce::on && c.kind == FoldChoice::Kind::none)
    throw InputError("--reduce", "", "cannot fold " + plan.strategy + " at " + std::to_string(plan.workers) +
                     " nodes exactly: " + c.why_not,
                     "a symmetric cluster (sim/fold.hpp), or --no-reduce");
  if (sim.reduce != SimGridOptions::Reduce::on && plan.workers < sim.reduce_from_workers) return {};
  return c;
}

// The plan a run executes: `full`, or the folded plan of `fold`.
SyncPlan executed_plan(const SyncPlan& full, const FoldChoice& fold) {
  switch (fold.kind) {
    case FoldChoice::Kind::onto_worker0: return folded_plan(full);
    case FoldChoice::Kind::by_classes: return class_folded_plan(full, fold.classes);
    case FoldChoice::Kind::none: break;
  }
  return full;
}

}  // namespace

bool reduces(const SyncPlan& plan, const SimGridOptions& sim, std::string* why_not) {
  return fold_of(plan, sim, why_not).kind != FoldChoice::Kind::none;
}

Result simulate_here(const SyncPlan& full, const RunOptions& opt, const SimGridOptions& sim, SimProgress* progress) {
  // Context settings are read when the engine starts, so they go on its command line:
  // many short-lived actors need small stacks (SIMGRID_NOTES.md); 16 KiB measured enough.
  int argc = 4;
  char name[] = "possim";
  char quiet[] = "--log=root.thres:critical";
  char stack[] = "--cfg=contexts/stack-size:16";
  char guard[] = "--cfg=contexts/guard-size:0";
  char* argv[] = {name, quiet, stack, guard, nullptr};
  sg4::Engine engine(&argc, argv);
  configure_engine();
  const FoldChoice choice = fold_of(full, sim);
  const bool fold = choice.kind != FoldChoice::Kind::none;
  const SyncPlan folded = fold ? executed_plan(full, choice) : SyncPlan{};
  const SyncPlan& plan = fold ? folded : full;
  // Folded onto worker 0, a dedicated server's links carry one flow for N (sim/fold.hpp).
  const bool onto0 = choice.kind == FoldChoice::Kind::onto_worker0;
  const Platform platform = build_platform(plan, onto0 ? 1.0 / full.workers : 1.0);
  Fold how;
  if (fold) how.full = &full;
  if (choice.kind == FoldChoice::Kind::by_classes) how.classes = &choice.classes;
  Executor executor(plan, opt, sim, platform, how);
  executor.report_to(progress);
  executor.start();
  engine.run();
  return executor.result();
}

namespace {

// Whether this process has not yet said that `strategy` at `workers` nodes is folded: a plan
// or a fit runs the same point at many bandwidths or parameter values (threads of one process,
// model/run/parallel.hpp), and one line per (strategy, nodes) says it.
bool first_fold_notice(const std::string& strategy, int workers) {
  static std::mutex mutex;
  static std::set<std::pair<std::string, int>> said;
  const std::lock_guard<std::mutex> lock(mutex);
  return said.emplace(strategy, workers).second;
}

// Memory the forked child counts into (sim/progress.hpp), unmapped with its owner.
class SharedProgress {
 public:
  SharedProgress() {
    void* p = ::mmap(nullptr, sizeof(SimProgress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error(std::string("simgrid engine: mmap: ") + std::strerror(errno));
    p_ = new (p) SimProgress();
  }
  ~SharedProgress() {
    p_->~SimProgress();
    ::munmap(p_, sizeof(SimProgress));
  }
  SharedProgress(const SharedProgress&) = delete;
  SharedProgress& operator=(const SharedProgress&) = delete;
  SimProgress* get() const { return p_; }

 private:
  SimProgress* p_;
};

void say_progress(const SyncPlan& plan, const SimProgress& p, double elapsed_s) {
  const double total = double(p.instances_total.load(std::memory_order_relaxed));
  const double done = double(p.instances_done.load(std::memory_order_relaxed));
  std::fprintf(stderr, "possim: simgrid: %s at %d nodes: %.0f%% of its %.0f task instances simulated, %.0f s so far\n",
               plan.strategy.c_str(), plan.cluster.nodes, total > 0 ? 100 * done / total : 0.0, total, elapsed_s);
}

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);
    done += std::size_t(n);
  }
}

// The child's result, read from `fd` until the child closes it. Only waits: other threads
// may fork meanwhile (model/run/fork_gate.hpp).
std::string collect(int fd, const SyncPlan& plan, const SimProgress& progress, const SimGridOptions& sim) {
  const fork_gate::Idle idle;
  std::string out;
  char buf[1 << 16];
  const auto started = std::chrono::steady_clock::now();
  // A point running longer than progress_every_s says how far it has got, that often: a
  // model of thousands of layers can take minutes, and silence looks like a hang.
  double said_s = 0;
  for (;;) {
    pollfd pfd{fd, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, 1000);
    if (ready < 0 && errno != EINTR) break;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (elapsed >= said_s + sim.progress_every_s && !sim.quiet) {
      say_progress(plan, progress, elapsed);
      said_s = elapsed;
    }
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, std::size_t(n));
  }
  ::close(fd);
  return out;
}

}  // namespace

std::uint64_t clock_step_budget(const SyncPlan& plan, const SimGridOptions& sim) {
  // What runs (worker 0 alone, folded; its collectives still take every worker's rounds).
  const SimulationSize size =
      check_simulation_size(executed_plan(plan, fold_of(plan, sim)), sim.flow_per_kv_pair, plan.workers);
  return sim.max_clock_steps > 0 ? sim.max_clock_steps
         : size.events() > (UINT64_MAX - SimProgress::kStepsBase) / SimProgress::kStepsPerEvent
             ? UINT64_MAX
             : size.events() * SimProgress::kStepsPerEvent + SimProgress::kStepsBase;
}

Result SimGridEngine::run(const SyncPlan& plan, const RunOptions& opt) const {
  const FoldChoice fold = fold_of(plan, options_);
  const SharedProgress progress;
  progress.get()->step_budget = clock_step_budget(plan, options_);  // before the child allocates anything
  if (fold.kind != FoldChoice::Kind::none && first_fold_notice(plan.strategy, plan.workers)) {
    if (fold.kind == FoldChoice::Kind::onto_worker0)
      std::fprintf(stderr, "possim: simgrid: %s at %d nodes: worker 0 simulated for all %d (symmetric cluster, "
                   "exact: sim/fold.hpp); --no-reduce simulates every node\n",
                   plan.strategy.c_str(), plan.workers, plan.workers);
    else
      std::fprintf(stderr, "possim: simgrid: %s at %d nodes: %d workers simulated for all %d (classes of nodes alike in "
                   "their shards' slices and stragglers, exact: sim/fold.hpp); --no-reduce simulates every node\n",
                   plan.strategy.c_str(), plan.workers, fold.classes.count(), plan.workers);
  }
  // Not folded automatically: silent, as every run was before (a sweep's error output
  // stays one line); --reduce says why it cannot fold.
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("simgrid engine: pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t child = -1;
  try {
    child = child_processes::spawn();
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  if (child == 0) {
    // Its own pipe's end and the standard streams only: another thread's pipe left open
    // here would keep that thread from seeing its own child's end until this one ended.
    if (fds[1] > 3) ::close_range(3, unsigned(fds[1]) - 1, 0);
    ::close_range(unsigned(fds[1]) + 1, ~0U, 0);
    int status = 0;
    try {
      const Result r = simulate_here(plan, opt, options_, progress.get());
      write_all(fds[1], result_to_json(r, true).dump());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "possim: simgrid engine: %s\n", e.what());
      status = 4;
    }
    ::close(fds[1]);
    _exit(status);
  }
  ::close(fds[1]);
  const std::string out = collect(fds[0], plan, *progress.get(), options_);
  const int status = child_processes::wait(child);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.empty())
    throw std::runtime_error("simgrid engine: the simulation of " + plan.strategy + " at " +
                             std::to_string(plan.cluster.nodes) + " nodes failed" +
                             (WIFSIGNALED(status) ? " (signal " + std::to_string(WTERMSIG(status)) + ")" : ""));
  return result_from_json(nlohmann::json::parse(out));
}

}  // namespace possim::sim
