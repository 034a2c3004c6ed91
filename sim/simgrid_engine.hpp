// The SimGrid engine: replays a SyncPlan with network contention, WFBP overlap,
// BSP/SSP barriers and stragglers (SimGrid 3.32, S4U).
//
// SimGrid allows one correct simulation per process (a second Engine in the same
// process keeps the old clock and callbacks), so each run happens in a forked child
// that sends its Result back over a pipe as JSON (doubles round-trip exactly).
#pragma once

#include "model/engine.hpp"

namespace possim::sim {

class SimGridEngine : public Engine {
 public:
  const char* name() const override { return "simgrid"; }
  Result run(const SyncPlan& plan, const Network& net, const RunOptions& opt) const override;
};

// The simulation itself, in this process. Only for a process that runs nothing else
// with SimGrid (the forked child, or a test binary dedicated to it).
Result simulate_here(const SyncPlan& plan, const Network& net, const RunOptions& opt);

}  // namespace possim::sim
