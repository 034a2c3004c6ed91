// A strategy turns a scenario point into a SyncPlan. Strategies know nothing of engines.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/input/scenario.hpp"
#include "model/input/strategy_names.hpp"
#include "model/plan/sync_plan.hpp"

namespace possim {

struct PlanRequest {
  const Network* net = nullptr;
  const Profile* profile = nullptr;
  Cluster cluster;
  int batch_per_gpu = 32;
  StrategyOptions options;
  int iterations = 5;
  std::uint64_t seed = 1;  // stragglers
  // The iteration time, seconds, of a candidate plan as the engines would charge it, for a
  // strategy that chooses by time (Poseidon under "best_scheme": "timed"): set by the run
  // layer (the analytic engine), empty where nothing asks for it.
  std::function<double(const SyncPlan&)> time_plan;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual const char* name() const = 0;
  virtual SyncPlan plan(const PlanRequest& r) const = 0;
};

// Throws std::invalid_argument for an unknown name (strategy_names() are the known ones),
// std::logic_error for a known name that has no factory.
std::unique_ptr<Strategy> make_strategy(const std::string& name);
SyncPlan make_plan(const std::string& strategy, const PlanRequest& r);

}  // namespace possim
