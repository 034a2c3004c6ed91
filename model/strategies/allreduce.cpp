// Ring all-reduce per layer, overlapped with backward (Horovod/NCCL without tensor
// fusion): the modern baseline the paper never met. No servers. Staging through host
// memory is pipelined with the network by NCCL, so no separate PCIe copies are charged.
#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

class AllReduce : public Strategy {
 public:
  const char* name() const override { return "allreduce"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    b.add_compute();
    std::vector<std::pair<int, TaskId>> synced;
    for (int l : b.param_layers_top_down()) {
      synced.emplace_back(l, b.allreduce_sync(l, {now(b.backward(l))}));
      b.decide(b.costs(l, "allreduce", "ring: 2(P-1)/P of the tensor each way"));
    }
    b.close_iteration(synced);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_allreduce_strategy() { return std::make_unique<AllReduce>(); }
}  // namespace possim
