// Adam-style (Chilimbi et al. 2014): FC layers push sufficient factors to the one shard
// that owns the layer, which rebuilds and applies them and sends the full matrix back to
// every worker: the owner's NIC is the hot spot. Other layers go through the PS.
#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

class Adam : public Strategy {
 public:
  const char* name() const override { return "adam"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    b.add_compute();
    std::vector<std::pair<int, TaskId>> synced;
    int fc_index = 0;
    for (int l : b.param_layers_top_down()) {
      const Deps after = {now(b.backward(l))};
      if (b.net().layers[std::size_t(l)].kind == LayerKind::fc) {
        synced.emplace_back(l, b.adam_sync(l, fc_index++ % b.shards(), after));
        b.decide(b.costs(l, "adam", "FC: factors to the owner shard"));
      } else {
        synced.emplace_back(l, b.ps_sync(l, b.tensor_hashed(l, b.param_bytes(l)), after));
        b.decide(b.costs(l, "ps", "not FC"));
      }
    }
    b.close_iteration(synced);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_adam_strategy() { return std::make_unique<Adam>(); }
}  // namespace possim
