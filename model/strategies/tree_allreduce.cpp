// Double-binary-tree all-reduce per layer across nodes, overlapped with backward (NCCL's
// tree algorithm, NCCL 2.4+): two binary trees, each reducing and then broadcasting half
// of the tensor, arranged so that every node is a leaf in one of them; pipelined in
// chunks. Each node's NIC carries about twice the tensor each way, as a ring does, but
// the latency grows with the trees' depth (log2 P) instead of 2(P-1) steps: the tree
// wins on small tensors at many nodes. Several GPUs per node gather on the leader first,
// as in `allreduce`.
#include <algorithm>
#include <cmath>

#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

// NCCL moves a collective in steps of its buffer (NCCL_BUFFSIZE, 4 MiB by default)
// divided into NCCL_STEPS (8) slots: 512 KiB per pipeline chunk. At most 64 chunks per
// tree are simulated (larger chunks beyond that): the pipeline's fill, depth/chunks, is
// then under 2% at 1,000 nodes (depth 10).
constexpr double kChunkBytes = 512.0 * 1024;
constexpr int kMaxChunks = 64;

class TreeAllReduce : public Strategy {
 public:
  const char* name() const override { return "tree_allreduce"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    b.add_compute();
    AllReduceHow how;
    how.kind = CollectiveKind::double_tree;
    how.chunks = [](double bytes) {
      return int(std::clamp(std::ceil(bytes / 2 / kChunkBytes), 1.0, double(kMaxChunks)));
    };
    const auto synced = b.allreduce_buckets(how, "tree_allreduce", "double binary tree: 2x the tensor per node, log2(P) deep");
    b.close_iteration(synced, PlanBuilder::Update::on_workers);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_tree_allreduce_strategy() { return std::make_unique<TreeAllReduce>(); }
}  // namespace possim
