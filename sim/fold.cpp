#include "sim/fold.hpp"

#include <string>

namespace possim::sim {

namespace {

std::string layer_name(const SyncPlan& plan, int layer) {
  return layer >= 0 && std::size_t(layer) < plan.layers.size() ? plan.layers[std::size_t(layer)].name
                                                                 : "#" + std::to_string(layer);
}

}  // namespace

std::string fold_refusal(const SyncPlan& plan) {
  if (plan.workers < 2) return "one worker: nothing to fold";
  if (!plan.undisturbed())
    return "stragglers (per-worker compute slowdowns or drops) make the workers differ";
  const bool colocated = plan.cluster.placement == ServerPlacement::colocated;
  const int shards = plan.num_shards(), nodes = plan.cluster.nodes;
  for (const Task& t : plan.tasks) {
    if (t.pattern == FlowPattern::collective && t.collective != CollectiveKind::ring)
      return std::string("the ") + to_string(t.collective) + " collective of layer " + layer_name(plan, t.layer) +
             " is not the same on every worker (a tree's root, inner nodes and leaves differ)";
    const bool uses_shards = t.pattern == FlowPattern::to_shards || t.pattern == FlowPattern::from_shards ||
                             t.scope == Scope::shard;
    if (!colocated || !uses_shards) continue;
    if (shards % nodes != 0)
      return std::to_string(shards) + " colocated shards do not divide evenly over " + std::to_string(nodes) +
             " nodes";
    const Tensor& tensor = plan.tensors.at(std::size_t(t.tensor));
    std::vector<int> seen(std::size_t(shards), 0);
    for (const Slice& s : tensor.slices) ++seen[std::size_t(s.shard)];
    bool even = tensor.slices.size() == std::size_t(shards);
    for (const Slice& s : tensor.slices)
      even = even && seen[std::size_t(s.shard)] == 1 && s.bytes == tensor.slices[0].bytes &&
             s.pairs == tensor.slices[0].pairs;
    if (!even)
      return "the shards of layer " + layer_name(plan, tensor.layer) +
             " hold unequal slices (colocated shards need every tensor spread evenly over every shard)";
  }
  return "";
}

SyncPlan folded_plan(const SyncPlan& full) {
  SyncPlan p = full;
  p.workers = 1;
  for (auto& row : p.stragglers.slowdown) row.resize(1);
  for (auto& row : p.stragglers.dropped) row.resize(1);
  return p;
}

}  // namespace possim::sim
