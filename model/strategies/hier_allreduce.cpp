// Hierarchical all-reduce per layer, overlapped with backward (NCCL/Horovod on nodes of
// several GPUs): a ring reduce-scatter among the node's GPUs over the intra-node links,
// a ring all-reduce across nodes of what each GPU holds (the node's G rings share its
// NIC, so the NIC carries one ring's worth of the whole tensor), then an all-gather
// inside the node. Against `allreduce` (every GPU's gradient gathered on a leader first)
// only the intra-node part changes: (G-1)/G of the tensor on every GPU link at once
// instead of (G-1) tensors in series into the leader. One GPU per node: the same plan
// as `allreduce`.
#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

class HierAllReduce : public Strategy {
 public:
  const char* name() const override { return "hier_allreduce"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    b.add_compute();
    AllReduceHow how;
    how.inside = AllReduceHow::Inside::ring;
    const auto synced = b.allreduce_buckets(how, "hier_allreduce", "reduce-scatter in the node, ring across nodes, all-gather");
    b.close_iteration(synced, PlanBuilder::Update::on_workers);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_hier_allreduce_strategy() { return std::make_unique<HierAllReduce>(); }
}  // namespace possim
