// One GPU, no communication: the baseline every speedup is measured against.
#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

class Single : public Strategy {
 public:
  const char* name() const override { return "single"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanRequest one = r;
    one.cluster.nodes = 1;
    one.cluster.gpus_per_node = 1;
    one.cluster.server_shards = 1;
    one.cluster.placement = ServerPlacement::colocated;
    PlanBuilder b(one, name());
    b.add_compute();
    b.local_update({now(b.last_backward())});  // where the profile times it apart
    for (int l : b.param_layers_top_down()) b.decide(b.costs(l, "local", "no peers"));
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_single_strategy() { return std::make_unique<Single>(); }
}  // namespace possim
