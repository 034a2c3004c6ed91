// An engine executes a SyncPlan and reports a Result. Engines know nothing of strategies.
#pragma once
#include <memory>
#include <string>

#include "model/result.hpp"
#include "model/sync_plan.hpp"

namespace possim {

struct RunOptions {
  bool timeline = false;   // record TimelineEvents
  std::uint64_t seed = 1;  // stragglers and anything else random
  StragglerModel stragglers;
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  virtual Result run(const SyncPlan& plan, const Network& net, const RunOptions& opt) const = 0;
};

// Per-layer rows (scheme, Table 1 costs) shared by every engine.
void fill_layer_rows(const SyncPlan& plan, const Network& net, Result& r);

}  // namespace possim
