// What a program and a module loaded into it (the SimGrid engine, engines/simgrid_module.hpp)
// must agree on to pass objects between them: the layouts of the types they share. Each side
// computes this from the headers it was compiled with; a module built from other sources (a
// build tree rebuilt in part, a program copied away from its build) gives another value and
// is refused by name, where it would otherwise read a plan through the wrong layout.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "model/input/profile.hpp"
#include "model/input/scenario.hpp"
#include "model/plan/sync_plan.hpp"
#include "model/run/engine.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/result.hpp"

namespace possim {

inline std::uint64_t shared_types_fingerprint() {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a over sizes and alignments
  for (std::uint64_t x :
       {sizeof(SyncPlan), alignof(SyncPlan), sizeof(Task), sizeof(Dep), sizeof(DepList), sizeof(Tensor),
        sizeof(Slice), sizeof(Rates), sizeof(Result), sizeof(LayerResult), sizeof(TimelineEvent), sizeof(Breakdown),
        sizeof(RunOptions), sizeof(EngineRequest), sizeof(EngineInfo), sizeof(Scenario), sizeof(Profile),
        sizeof(Network), sizeof(Layer), sizeof(Cluster)}) {
    h ^= x;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace possim
