// Folding a symmetric cluster onto representative workers: the SimGrid engine's
// reduction for large clusters, exact where it claims to be.
//
// When every worker does the same thing at the same time, worker 0 (node 0) stands for
// all N of them: the engine simulates its GPU, PCIe and every flow it sends or receives,
// one by one, and folds the other N-1 workers into the links its flows cross, so that
// every NIC, shard and GPU carries exactly the load it carries in the full cluster.
//
// Why it is exact. The platform is a star of split-duplex NIC links behind a non-blocking
// switch (sim/platform.hpp): a flow a -> b is limited only by a's tx and b's rx, each
// shared max-min fairly among the flows crossing it (CM02, no cross-traffic, no TCP
// window cap). The max-min allocation is unique, so a problem that maps onto itself when
// workers are permuted has a symmetric allocation: flows related by the permutation get
// the same rate, start at the same instant and land at the same instant. Two foldings
// then reproduce every rate, hence every time, exactly:
//  * Between workers (SFB broadcasts, ring all-reduce) and, with colocated shards,
//    between nodes: the cluster is symmetric under rotating the nodes (n -> n+1 mod N),
//    so the rx link of the node a flow of worker 0 reaches carries, flow class by flow
//    class, what node 0's own rx carries. Each remote flow of worker 0 is routed out
//    over node 0's tx and back in over node 0's rx: the flow 0 -> k stands for itself on
//    tx and for (N-k) -> 0 on rx. Every link constraint of node 0 then holds each class
//    of flow exactly once, as in the full cluster.
//  * Dedicated server nodes are symmetric under permuting workers only (their slices
//    may differ, so servers stay one by one): each server link carries one flow from or
//    to every worker, all of the same class, so worker 0's flow alone through a link of
//    1/N the capacity gets exactly the rate each of the N flows gets in the full cluster.
// Shard applies run on their own nodes' CPUs, each for every worker's update (the
// apply's amount counts all N), released when worker 0's flow carrying the slice lands:
// by symmetry every worker's flow of that slice lands at that instant.
//
// When it is exact (fold_refusal() returns ""), and otherwise refused:
//  * no stragglers: every compute slowdown 1 and nobody dropped, in every iteration;
//  * collectives that are the same on every worker up to rotation: the ring all-reduce
//    (the double binary tree's root, inner nodes and leaves differ: refused);
//  * shards: dedicated, any number and any slicing; or colocated with the same number of
//    shards on every node (shards a multiple of nodes) and every tensor's slices of equal
//    bytes and KV pairs on every shard (the KV hashing balances a tensor exactly only
//    when its pairs are a multiple of the shards and its bytes of the pair size).
// Nodes are otherwise identical by construction (one NIC rate, one GPU profile).
//
// What it reports: every per-node and per-link figure of the full cluster, from worker 0
// (every worker node) and each server (its flows times N); flows per iteration times N.
// The timeline holds worker 0 and the shards only.
//
// Folding by classes: colocated shards whose slices differ, and stragglers. The KV hashing
// deals a tensor's pairs round robin, so shards hold slices of one size or the next and
// the rotation above no longer maps the cluster onto itself. Nodes whose shards hold the
// same slices (bytes and KV pairs, shard by shard on the node, tensor by tensor) and whose
// workers have the same straggler rows (slowdown and drop, iteration by iteration) form a
// class; exchanging two nodes of a class maps the cluster onto itself, so the max-min
// allocation, and every instant after it, is the same for both. A fixed slow node is a
// class of its own; drawn slowdowns make every node one. Dedicated server nodes form
// classes of their own, by the slices they hold.
// The run simulates one worker per class of worker nodes (its least node, the
// representative), every shard, and between representatives one flow for each group of
// flows that land together: r_a -> r_b stands for the flows of every node of class a to
// every node of class b (its other nodes when a == b) that carry the same slice position,
// m_b flows on r_a's tx and m_a on r_b's rx (m: nodes of the class, less the node itself
// when a == b; the star solver weighs a flow by them: sim/network/star_sharing.hpp).
// Pulls, SFB broadcasts and flows to dedicated servers group the same way. A shard of a
// class-b node counts, from each class a, the landing of the group that reaches it as
// that class's delivery (its own node's local one lands no later); its apply counts every
// worker's update, as above.
// What it reports: each node's figures are its representative's (its links carry the
// flows each flow stands for), flows are counted by what each stands for, the GPU's busy
// time is weighed by the classes' sizes; the timeline holds the representatives and the
// shards.
//
// When the fold by classes is exact (class_fold_refusal() returns ""): no collective (a
// ring or tree is not the same on every node of a class once the classes differ), at most
// one slice of a tensor on a shard, no CPU-side optimizer beside colocated shards (it
// would contend with applies on nodes not simulated), the star network backend (SimGrid's
// own solver takes no per-link weights), and fewer classes of workers than workers
// (otherwise nothing is gained).
#pragma once
#include <string>
#include <vector>

#include "model/plan/sync_plan.hpp"
#include "sim/network/star_sharing.hpp"
#include "sim/simgrid_engine.hpp"

namespace possim::sim {

// Why worker 0 cannot stand exactly for every worker of `plan`, as one line; "" if it can.
std::string fold_refusal(const SyncPlan& plan);

// The plan the folded engine executes: the same tasks, tensors and cluster, one worker
// (worker 0, with its row of the straggler table).
SyncPlan folded_plan(const SyncPlan& full);

// Nodes by what their shards hold and their workers' stragglers (see above).
struct NodeClasses {
  std::vector<int> class_of;  // per node (workers', then dedicated servers')
  std::vector<int> rep;       // per class: its least node, the one simulated (class 0: node 0)
  std::vector<int> size;      // per class: its nodes
  int worker_classes = 0;     // classes 0.. of worker nodes; the rest are dedicated servers'
  int count() const { return int(rep.size()); }
};
// A shard's place among the shards of its node: colocated shard s is node (s mod N)'s
// (s / N)-th; a dedicated server node holds one.
inline int shard_place(const SyncPlan& plan, int shard) {
  return plan.cluster.placement == ServerPlacement::colocated ? shard / plan.cluster.nodes : 0;
}
NodeClasses node_classes(const SyncPlan& plan);

// Why the classes cannot stand exactly for every node of `plan`, as one line; "" if they can.
std::string class_fold_refusal(const SyncPlan& plan, const NodeClasses& classes, NetworkBackend backend);

// The plan a run folded by classes executes: one worker per class (folded worker c is
// class c's representative node), every shard, the full cluster's nodes.
SyncPlan class_folded_plan(const SyncPlan& full, const NodeClasses& classes);

// How a run of `plan` folds, if it does.
struct FoldChoice {
  enum class Kind { none, onto_worker0, by_classes } kind = Kind::none;
  std::string why_not;  // for none: why neither fold is exact
  NodeClasses classes;  // by_classes
};
FoldChoice choose_fold(const SyncPlan& plan, NetworkBackend backend);

struct Fold {
  const SyncPlan* full = nullptr;        // the plan folded; nullptr: the engine runs every node
  const NodeClasses* classes = nullptr;  // folded by classes; nullptr: onto worker 0
  bool on() const { return full != nullptr; }
  bool by_classes() const { return classes != nullptr; }
  int workers() const { return full->workers; }
  bool dedicated() const { return full->cluster.placement == ServerPlacement::dedicated; }
  // The node whose links carry a full-cluster node's part of the simulated flows: node 0
  // for every worker node (and every node, colocated), a dedicated server node itself; by
  // classes, the node's representative.
  int node(int full_node) const {
    if (by_classes()) return classes->rep[std::size_t(classes->class_of[std::size_t(full_node)])];
    return !on() || (dedicated() && full_node >= full->workers) ? full_node : 0;
  }
  // By classes: the nodes folded worker w stands for.
  int class_size(int w) const { return classes->size[std::size_t(w)]; }
  // The full cluster's worker (and node) that folded worker w simulates.
  int worker_node(int w) const { return by_classes() ? classes->rep[std::size_t(w)] : w; }
  // By classes: how many flows of the full cluster a flow between representatives stands
  // for on the sender's tx and the receiver's rx (see above).
  StarSharing::Multiplicity multiplicity(int src_node, int dst_node) const {
    if (!by_classes()) return {};
    const int a = classes->class_of[std::size_t(src_node)], b = classes->class_of[std::size_t(dst_node)];
    const int self = a == b ? 1 : 0;
    return {double(classes->size[std::size_t(b)] - self), double(classes->size[std::size_t(a)] - self)};
  }
};

}  // namespace possim::sim
