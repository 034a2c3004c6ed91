// Naive parameter server (Caffe+PS): every layer syncs only after the whole backward
// pass, through the PS with full matrices, and nothing overlaps compute. Even on one
// node it pays the GPU<->host copies and the server's apply every iteration.
#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

class NaivePs : public Strategy {
 public:
  const char* name() const override { return "ps"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    b.add_compute();
    std::vector<std::pair<int, TaskId>> synced;
    for (int l : b.param_layers_top_down()) {
      const int tensor = b.tensor_hashed(l, b.param_bytes(l));
      synced.emplace_back(l, b.ps_sync(l, tensor, {now(b.last_backward())}));
      b.decide(b.costs(l, "ps", "every layer through the PS"));
    }
    b.close_iteration(synced);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_ps_strategy() { return std::make_unique<NaivePs>(); }
}  // namespace possim
