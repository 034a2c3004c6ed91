// An engine executes a SyncPlan and reports a Result. Engines know nothing of strategies.
#pragma once
#include <functional>
#include <memory>
#include <utility>
#include <string>

#include "model/result.hpp"
#include "model/sync_plan.hpp"
#include "model/trace/worker_selection.hpp"

namespace possim {

struct RunOptions {
  bool timeline = false;   // record TimelineEvents
  // The workers whose tasks the timeline keeps, with the NICs of their nodes; shards
  // (and dedicated server nodes) always.
  WorkerSelection trace_workers;
  std::uint64_t seed = 1;  // stragglers and anything else random
  StragglerModel stragglers;
  // SimGrid engine: one flow per KV pair instead of one per (sender, shard) connection.
  // The default matches TCP, where a worker's pairs for one server share a connection
  // and so one fair share; per-pair flows give that worker one share per pair.
  bool flow_per_kv_pair = false;
  // SimGrid engine: once an iteration provably repeats the one before it (barrier-separated,
  // same timings, no per-iteration input), report the remaining iterations from it instead
  // of simulating them. The numbers agree with a full run to rounding (~1e-13 relative).
  bool reuse_repeating_iterations = true;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  virtual Result run(const SyncPlan& plan, const Network& net, const RunOptions& opt) const = 0;
};

// A Result's header (model, strategy, engine, cluster) and iteration times from the
// end of each iteration: the steady iteration is the mean after the first.
Result begin_result(const SyncPlan& plan, const Network& net, const char* engine,
                    std::vector<double> iteration_end_s);

// Start and finish (absolute seconds) of template task i's representative instance in
// the last iteration.
using TaskSpan = std::function<std::pair<double, double>(std::size_t task)>;

// Per-layer rows shared by every engine: scheme and Table 1 costs from the plan, and each
// layer's sync window (its non-compute tasks) in the last iteration, from that
// iteration's start. Needs r.iteration_end_s.
void fill_layer_rows(const SyncPlan& plan, const Network& net, Result& r, const TaskSpan& span);

}  // namespace possim
