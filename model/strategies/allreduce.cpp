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
    const auto synced = b.allreduce_buckets(AllReduceHow{}, "allreduce", "ring: 2(P-1)/P of the tensor each way");
    b.close_iteration(synced, PlanBuilder::Update::on_workers);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_allreduce_strategy() { return std::make_unique<AllReduce>(); }
}  // namespace possim
