// A strategy turns a scenario point into a SyncPlan. Strategies know nothing of engines.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/input/scenario.hpp"
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
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual const char* name() const = 0;
  virtual SyncPlan plan(const PlanRequest& r) const = 0;
};

// single ps wfbp poseidon tf_stock adam onebit allreduce hier_allreduce tree_allreduce
const std::vector<std::string>& strategy_names();
bool is_strategy(const std::string& name);
// The reference every speedup is over: one GPU of one node, whatever the cluster, which
// communicates nothing ("single"). Sweeps run it once per bandwidth; reports draw no
// scaling line for it.
const char* reference_strategy();
bool is_reference(const std::string& strategy);
// Throws std::invalid_argument for an unknown name.
std::unique_ptr<Strategy> make_strategy(const std::string& name);
SyncPlan make_plan(const std::string& strategy, const PlanRequest& r);

}  // namespace possim
