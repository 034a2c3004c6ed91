// An engine executes a SyncPlan and reports a Result. Engines know nothing of strategies.
#pragma once
#include <functional>
#include <memory>
#include <utility>
#include <string>

#include "model/run/result.hpp"
#include "model/plan/sync_plan.hpp"
#include "model/run/worker_selection.hpp"

namespace possim {

// What every engine honours on every run. Options only one engine understands belong to
// that engine's own type, given when it is made (sim::SimGridOptions).
struct RunOptions {
  bool timeline = false;  // record TimelineEvents
  // The workers whose tasks the timeline keeps, with the NICs of their nodes; shards
  // (and dedicated server nodes) always.
  WorkerSelection trace_workers;
  // The caller reads the iteration times, GPU busy time and bytes alone (a single-GPU
  // baseline, the sigma-point reruns of an interval, a timed candidate scheme): an engine
  // may leave the layer rows and the breakdown empty.
  bool iteration_only = false;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  // Runs the plan as written; throws InputError naming what it cannot honour rather than
  // ignoring it.
  virtual Result run(const SyncPlan& plan, const RunOptions& opt) const = 0;
  // Whether this process runs the scenario's points and writes what the engine returns
  // (false: a live rank serving its node under mpirun, which serve()s instead).
  virtual bool writes_results() const { return true; }
  // A point takes this engine microseconds, in this process, so that building its plan is a
  // fair share of it (the analytic engine: a third): a sweep then builds one plan for the
  // points that differ in the NIC's line rate alone and runs them on it in turn (run_sweep).
  // False where a point takes seconds and the points are better spread over the jobs.
  virtual bool points_are_cheap() const { return false; }
  // A process that writes no results: runs what its coordinator sends until told the run
  // is over.
  virtual void serve() const {}
  // The points are done (or failed): an engine whose ranks serve tells them to end.
  virtual void end_run() const {}
};

// A Result's header (model, strategy, engine, cluster) and iteration times from the
// end of each iteration: the steady iteration is the mean after the first.
Result begin_result(const SyncPlan& plan, const char* engine, std::vector<double> iteration_end_s);

// Start and finish (absolute seconds) of template task i's representative instance in
// the last iteration.
using TaskSpan = std::function<std::pair<double, double>(std::size_t task)>;

// Per-layer rows shared by every engine: scheme and Table 1 costs from the plan, and each
// layer's sync window (its tasks other than its own passes) in the last iteration, from
// that iteration's start. Needs r.iteration_end_s.
void fill_layer_rows(const SyncPlan& plan, Result& r, const TaskSpan& span);

}  // namespace possim
