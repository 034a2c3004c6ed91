// The live engine: runs a plan for real (live/launch_local.hpp) and reports what happened
// in the same Result as the analytic and SimGrid engines. Iteration times, the time
// breakdown and the per-layer sync windows come from the timestamps the node processes
// recorded; bytes per node from what their sockets carried, times the network scale (so
// that they are the scenario's bytes).
#pragma once
#include <optional>

#include "live/launch_local.hpp"
#include "live/launch_mpi.hpp"
#include "model/run/engine.hpp"

namespace possim::live {

struct LiveOptions {
  double network_scale = 1;  // model/plan/network_scale.hpp
  double time_dilation = 1;  // model/plan/time_dilation.hpp; 0: nodes / cores of this machine
  LaunchOptions launch;
  std::optional<MpiRank> mpi;  // under mpirun: this process's rank (live/launch_mpi.hpp)
};

// Adds the engine to the registry (model/run/engine_registry.hpp), with its scenario
// section (live/live_settings.hpp).
void register_live_engine();

class LiveEngine : public Engine {
 public:
  explicit LiveEngine(LiveOptions opt = {}) : opt_(std::move(opt)) {}
  const char* name() const override { return "live"; }
  // Under mpirun, rank 0 runs each plan across the ranks (live/launch_mpi.hpp); the
  // others serve() their node of whatever plan it sends, and end when it says end_run().
  Result run(const SyncPlan& plan, const RunOptions& opt) const override;
  bool writes_results() const override { return !opt_.mpi || opt_.mpi->rank == 0; }
  void serve() const override;
  void end_run() const override;

  // Nodes a local live run may have: each is a process with a thread per connection.
  static constexpr int kMaxLocalNodes = 64;

 private:
  LiveOptions opt_;
};

}  // namespace possim::live
