// Folding a symmetric cluster onto one representative worker: the SimGrid engine's
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
#pragma once
#include <string>

#include "model/plan/sync_plan.hpp"

namespace possim::sim {

// Why worker 0 cannot stand exactly for every worker of `plan`, as one line; "" if it can.
std::string fold_refusal(const SyncPlan& plan);

// The plan the folded engine executes: the same tasks, tensors and cluster, one worker
// (worker 0, with its row of the straggler table).
SyncPlan folded_plan(const SyncPlan& full);

struct Fold {
  const SyncPlan* full = nullptr;  // the plan folded; nullptr: the engine runs every node
  bool on() const { return full != nullptr; }
  int workers() const { return full->workers; }
  bool dedicated() const { return full->cluster.placement == ServerPlacement::dedicated; }
  // The node whose links carry a full-cluster node's part of worker 0's flows: node 0 for
  // every worker node (and every node, colocated), a dedicated server node itself.
  int node(int full_node) const {
    return !on() || (dedicated() && full_node >= full->workers) ? full_node : 0;
  }
};

}  // namespace possim::sim
