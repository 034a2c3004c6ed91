#include "sim/fold.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace possim::sim {

namespace {

std::string layer_name(const SyncPlan& plan, int layer) {
  return layer >= 0 && std::size_t(layer) < plan.layers.size() ? plan.layers[std::size_t(layer)].name
                                                                 : "#" + std::to_string(layer);
}

// A CPU-side optimizer on the workers' nodes shares their CPUs with the colocated shards'
// applies; folded, the nodes not simulated would apply without it.
bool host_cpu_beside_shards(const SyncPlan& plan) {
  if (plan.cluster.placement != ServerPlacement::colocated) return false;
  bool host = false, shard = false;
  for (const Task& t : plan.tasks) {
    host = host || t.resource == Resource::host_cpu;
    shard = shard || t.scope == Scope::shard;
  }
  return host && shard;
}

}  // namespace

std::string fold_refusal(const SyncPlan& plan) {
  if (plan.workers < 2) return "one worker: nothing to fold";
  if (!plan.undisturbed())
    return "stragglers (per-worker compute slowdowns or drops) make the workers differ";
  if (host_cpu_beside_shards(plan))
    return "a CPU-side optimizer on the workers' nodes contends with the shards colocated there";
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

NodeClasses node_classes(const SyncPlan& plan) {
  const int nodes = plan.cluster.total_nodes();
  // A node's signature: whether it is a dedicated server; (tensor, its shard's place on the
  // node, bytes, pairs) of every slice it holds, in that order; its worker's slowdown and
  // whether it is dropped, iteration by iteration.
  using Entry = std::tuple<int, int, double, int>;
  using Signature = std::tuple<bool, std::vector<Entry>, std::vector<double>>;
  std::vector<Signature> held(std::size_t(std::max(nodes, 0)));
  for (int n = plan.workers; n < nodes; ++n) std::get<0>(held[std::size_t(n)]) = true;
  for (std::size_t t = 0; t < plan.tensors.size(); ++t)
    for (const Slice& s : plan.tensors[t].slices)
      std::get<1>(held[std::size_t(plan.shard_node(s.shard))])
          .emplace_back(int(t), shard_place(plan, s.shard), s.bytes, s.pairs);
  for (int n = 0; n < nodes && n < plan.workers; ++n)
    for (std::size_t t = 0; t < plan.stragglers.slowdown.size(); ++t) {
      std::get<2>(held[std::size_t(n)]).push_back(plan.stragglers.slowdown[t][std::size_t(n)]);
      std::get<2>(held[std::size_t(n)]).push_back(plan.stragglers.dropped[t][std::size_t(n)]);
    }
  NodeClasses c;
  std::map<Signature, int> known;
  for (int n = 0; n < nodes; ++n) {
    Signature& sig = held[std::size_t(n)];
    std::sort(std::get<1>(sig).begin(), std::get<1>(sig).end());
    const auto [it, fresh] = known.emplace(std::move(sig), c.count());
    if (fresh) {
      c.rep.push_back(n);
      c.size.push_back(0);
    }
    c.class_of.push_back(it->second);
    ++c.size[std::size_t(it->second)];
  }
  // Workers are nodes 0..N-1 and classes are numbered by their least node: the workers'
  // classes come first.
  const long workers = std::min(plan.workers, nodes);
  c.worker_classes = workers > 0 ? 1 + *std::max_element(c.class_of.begin(), c.class_of.begin() + workers) : 0;
  return c;
}

std::string class_fold_refusal(const SyncPlan& plan, const NodeClasses& classes, NetworkBackend backend) {
  if (plan.workers < 2) return "one worker: nothing to fold";
  if (host_cpu_beside_shards(plan))
    return "a CPU-side optimizer on the workers' nodes contends with the shards colocated there";
  for (const Task& t : plan.tasks) {
    if (t.pattern == FlowPattern::collective)
      return std::string("the ") + to_string(t.collective) + " collective of layer " + layer_name(plan, t.layer) +
             " is not the same on every node of a class";
    if (t.tensor < 0) continue;
    const auto& slices = plan.tensors.at(std::size_t(t.tensor)).slices;
    std::vector<char> seen(std::size_t(plan.num_shards()), 0);
    for (const Slice& s : slices)
      if (seen[std::size_t(s.shard)]++)
        return "layer " + layer_name(plan, t.layer) + " has two slices on shard " + std::to_string(s.shard);
  }
  if (backend != NetworkBackend::star) return "the lmm network backend takes no flow multiplicities (--network star)";
  // Each worker's flows reach every shard: the fold pays off only when workers share classes.
  if (classes.worker_classes >= plan.workers)
    return "every worker's node differs from the others (its shards' slices or its worker's stragglers): " +
           std::to_string(classes.worker_classes) + " classes of " + std::to_string(plan.workers) + " workers";
  return "";
}

SyncPlan class_folded_plan(const SyncPlan& full, const NodeClasses& classes) {
  SyncPlan p = full;
  p.workers = classes.worker_classes;
  // Folded worker c runs as its representative's worker does: that node's straggler rows.
  for (std::size_t t = 0; t < p.stragglers.slowdown.size(); ++t)
    for (int c = 0; c < p.workers; ++c) {
      const std::size_t rep = std::size_t(classes.rep[std::size_t(c)]);
      p.stragglers.slowdown[t][std::size_t(c)] = full.stragglers.slowdown[t][rep];
      p.stragglers.dropped[t][std::size_t(c)] = full.stragglers.dropped[t][rep];
    }
  for (auto& row : p.stragglers.slowdown) row.resize(std::size_t(p.workers));
  for (auto& row : p.stragglers.dropped) row.resize(std::size_t(p.workers));
  return p;
}

FoldChoice choose_fold(const SyncPlan& plan, NetworkBackend backend) {
  FoldChoice c;
  const std::string rotation = fold_refusal(plan);
  if (rotation.empty()) {
    c.kind = FoldChoice::Kind::onto_worker0;
    return c;
  }
  if (plan.workers >= 2) {
    c.classes = node_classes(plan);
    const std::string by_classes = class_fold_refusal(plan, c.classes, backend);
    if (by_classes.empty()) {
      c.kind = FoldChoice::Kind::by_classes;
      return c;
    }
    c.classes = {};
    c.why_not = rotation + "; by classes of nodes: " + by_classes;
    return c;
  }
  c.why_not = rotation;
  return c;
}

}  // namespace possim::sim
