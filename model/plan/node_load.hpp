// Bytes and messages that one network task puts on the busiest node's NIC, and on the
// average node's: the closed form behind the analytic engine and the traffic report.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/plan/flat_index.hpp"
#include "model/plan/sync_plan.hpp"

namespace possim {

enum class Role { worker, server };

struct NodeLoad {
  Role tx_role = Role::worker, rx_role = Role::worker;
  double tx_bytes_max = 0, rx_bytes_max = 0;   // busiest sender / receiver, one instance
  // Messages the busiest worker sends or receives in this task (a collective: those in
  // series on its critical path): per-message software cost is charged to workers; a
  // shard's handling is part of its apply rate.
  double messages_max = 0;
  double tx_bytes_mean = 0, rx_bytes_mean = 0; // per node of the sending / receiving role
  double total_bytes = 0;                      // all instances together, off-host only
  // A collective: bytes moved in series on its critical path; more than the busiest
  // node's when a deep pipeline of few chunks waits for each hop (a tree, small tensor).
  double path_bytes = 0;
  int sequential_steps = 1;                    // latencies in series (a collective's critical path)
};

// Each node's bytes over all of a plan's network tasks, and the busiest node's: a task's
// busiest node differs from task to task (the node of the shard holding its largest slice),
// so the busiest node of the iteration is not the sum of the tasks' busiest. Kept sparse:
// what every worker node moves, plus what a node's own slices add (as a shard) or spare it
// (as a worker that keeps its local slice off the wire).
class NodeBytes {
 public:
  explicit NodeBytes(int workers) : workers_(workers) {}
  void add_every_worker(double tx, double rx) {
    every_worker_[0] += tx;
    every_worker_[1] += rx;
  }
  void add_node(int node, double tx, double rx) {
    Own& own = own_of(node);
    own.tx += tx;
    own.rx += rx;
  }
  double tx_max() const { return busiest(0); }
  double rx_max() const { return busiest(1); }
  // The node whose busier direction carries the most (the lowest such node).
  int busiest_node() const;

 private:
  double busiest(int dir) const;
  // Calls f(node, tx, rx) for each node holding a slice, and for the lowest worker node
  // holding none (the others like it carry the same).
  template <class F>
  void each_node(F&& f) const;
  // A node's (tx, rx) beyond what every worker node moves, in the order the nodes were
  // first added; `where_` finds a node's (added once per network task and slice: a heap
  // node per entry in a std::unordered_map was a tenth of preparing a plan).
  struct Own {
    int node;
    double tx = 0, rx = 0;
  };
  Own& own_of(int node);
  bool holds(int node) const { return where_.find(std::uint64_t(node)) != FlatIndex::kNone; }
  int workers_;
  double every_worker_[2] = {0, 0};  // tx, rx
  std::vector<Own> own_;
  FlatIndex where_;  // node -> its place in own_
};

// Load of one instance of task `t` (for worker-scope tasks: every worker runs it at once);
// with `per_node`, its bytes are added there node by node too.
NodeLoad node_load(const SyncPlan& plan, const Task& t, NodeBytes* per_node = nullptr);

// What one instance of `t` puts on one node's NIC, as node_load places it: (tx, rx) bytes.
// `load` is node_load(plan, t).
std::pair<double, double> node_bytes(const SyncPlan& plan, const Task& t, const NodeLoad& load, int node);

}  // namespace possim
