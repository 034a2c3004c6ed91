// The SimGrid engine: replays a SyncPlan with network contention, WFBP overlap,
// BSP/SSP barriers and stragglers (SimGrid 3.32, S4U).
//
// SimGrid allows one correct simulation per process (a second Engine in the same
// process keeps the old clock and callbacks), so each run happens in a forked child
// that sends its Result back over a pipe as JSON (doubles round-trip exactly).
#pragma once
#include <cstdint>

#include "model/run/engine.hpp"

namespace possim::sim {

// What carries the flows between NICs (sim/network/nic_network.hpp): possim's star solver,
// or SimGrid's own (a Comm per flow; the same model, O(flows) per event: for checking).
enum class NetworkBackend { star, lmm };

// What only this engine understands.
struct SimGridOptions {
  NetworkBackend network = NetworkBackend::star;
  // One flow per KV pair instead of one per (sender, shard) connection. The default
  // matches TCP, where a worker's pairs for one server share a connection and so one fair
  // share; per-pair flows give that worker one share per pair.
  bool flow_per_kv_pair = false;
  // Once an iteration provably repeats the one before it (sim/repeat_detector.hpp),
  // report the remaining iterations from it instead of simulating them. The numbers
  // agree with a full run to rounding (~1e-13 relative).
  bool reuse_repeating_iterations = true;
  // Fold the workers of a symmetric cluster onto worker 0, or colocated shards' nodes by
  // classes (sim/fold.hpp: exact, and
  // refused where it would not be): automatic from `reduce_from_workers` workers where
  // valid, never, or always (an input error where not valid).
  enum class Reduce { automatic, off, on };
  Reduce reduce = Reduce::automatic;
  // Measured (bench/results/simgrid_scale.md, VGG19-22K, star solver): a full run takes
  // 0.01 s at 8 nodes, 0.04-0.11 s at 32, 1-2 s at 256, 9-18 s at 1,024 and 1-1.5 min at 4,096;
  // folded, 0.1 s at 1,024 and 0.4 s at 4,096. Below 32 the full run is cheap and keeps every
  // worker's timeline.
  int reduce_from_workers = 32;
  // The run's budget of SimGrid clock steps (sim/progress.hpp); 0: derived from the plan,
  // 64 per task instance and flow it holds plus a million. A run past it is stopped.
  std::uint64_t max_clock_steps = 0;
  // A point running longer than this says on stderr how far it has got, and again as often.
  double progress_every_s = 10;
  // No progress of a long point on stderr (`possim run -q`: "no table, no progress"); the
  // one-line notice that a run was folded stays, as what the numbers are of.
  bool quiet = false;
};

// Whether a run of `plan` is folded; `why_not` gets the reason it is not valid ("" when
// it is). Throws InputError when folding is asked for (Reduce::on) and not valid.
bool reduces(const SyncPlan& plan, const SimGridOptions& sim, std::string* why_not = nullptr);

// The clock steps a run of `plan` may take (SimGridOptions::max_clock_steps, or derived
// from what it simulates: folded, worker 0's instances and flows, a collective's rounds
// over all its workers). Checks the simulation's size first (InputError when too large).
std::uint64_t clock_step_budget(const SyncPlan& plan, const SimGridOptions& sim);

// Adds the engine to the registry (model/run/engine_registry.hpp).
void register_simgrid_engine();

class SimGridEngine : public Engine {
 public:
  explicit SimGridEngine(SimGridOptions options = {}) : options_(options) {}
  const char* name() const override { return "simgrid"; }
  Result run(const SyncPlan& plan, const RunOptions& opt) const override;

 private:
  SimGridOptions options_;
};

// The simulation itself, in this process. Only for a process that runs nothing else
// with SimGrid (the forked child, or a test binary dedicated to it).
// `progress`: where a forked child counts (sim/progress.hpp); null in a test's process.
struct SimProgress;
Result simulate_here(const SyncPlan& plan, const RunOptions& opt, const SimGridOptions& sim = {},
                     SimProgress* progress = nullptr);

}  // namespace possim::sim
