// Bytes and messages that one network task puts on the busiest node's NIC, and on the
// average node's: the closed form behind the analytic engine and the traffic report.
#pragma once

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

// Load of one instance of task `t` (for worker-scope tasks: every worker runs it at once).
NodeLoad node_load(const SyncPlan& plan, const Task& t);

}  // namespace possim
