// Wait-free backpropagation: layer l's PS sync starts the instant b_l finishes, so the
// top layers' communication hides under the lower layers' backward compute.
#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

class Wfbp : public Strategy {
 public:
  const char* name() const override { return "wfbp"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    b.add_compute();
    std::vector<std::pair<int, TaskId>> synced;
    for (int l : b.param_layers_top_down()) {
      const int tensor = b.tensor_hashed(l, b.param_bytes(l));
      synced.emplace_back(l, b.ps_sync(l, tensor, {now(b.backward(l))}));
      b.decide(b.costs(l, "ps", "every layer through the PS"));
    }
    b.close_iteration(synced);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_wfbp_strategy() { return std::make_unique<Wfbp>(); }
}  // namespace possim
