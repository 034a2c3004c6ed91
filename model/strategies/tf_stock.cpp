// Stock distributed TensorFlow (r0.10): each variable lives whole on one shard
// (round-robin placement, so one big FC weight makes its shard a hot spot); gradients
// are pushed as backward produces them, but the parameter fetch happens at the start of
// the next iteration, after the sync barrier, and is not overlapped with the previous one.
#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

class TfStock : public Strategy {
 public:
  const char* name() const override { return "tf_stock"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    const std::vector<int> layers = b.param_layers_top_down();
    std::vector<int> tensor(b.net().layers.size(), -1);
    for (int l : layers) tensor[std::size_t(l)] = b.tensor_per_variable(l);
    // Fetch first (template order), after the previous iteration's barrier: the barrier
    // is added last, so the fetch's dependency on it is patched in below.
    std::vector<std::pair<int, PlanBuilder::PullIds>> fetched;
    for (auto it = layers.rbegin(); it != layers.rend(); ++it)
      fetched.emplace_back(*it, b.ps_pull_half(*it, tensor[std::size_t(*it)], {}));
    b.add_compute();
    for (const auto& [l, ids] : fetched) b.add_forward_dep(l, now(ids.done));
    std::vector<std::pair<int, TaskId>> pushed;
    for (int l : layers) {
      pushed.emplace_back(l, b.ps_push_half(l, tensor[std::size_t(l)], {now(b.backward(l))}));
      b.decide(b.costs(l, "ps", "whole variable on one shard"));
    }
    Deps all;
    for (const auto& [l, apply] : pushed) all.push_back(now(apply));
    const TaskId barrier = b.barrier(all);
    b.add_forward_dep(0, prev(barrier));
    // The fetch of iteration t reads what iteration t-1 applied.
    for (const auto& [l, ids] : fetched) b.add_dep(ids.pull, prev(barrier));
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_tf_stock_strategy() { return std::make_unique<TfStock>(); }
}  // namespace possim
