#include "model/node_load.hpp"

#include <algorithm>
#include <vector>

namespace possim {

namespace {

// Per-node bytes and pairs of a tensor's slices (nodes 0..total_nodes-1).
struct Placement {
  std::vector<double> bytes;
  std::vector<double> pairs;
};

Placement place(const SyncPlan& plan, const Tensor& tensor, double scale) {
  Placement p;
  p.bytes.assign(std::size_t(plan.cluster.total_nodes()), 0.0);
  p.pairs.assign(p.bytes.size(), 0.0);
  for (const Slice& s : tensor.slices) {
    const auto n = std::size_t(plan.shard_node(s.shard));
    p.bytes[n] += s.bytes * scale;
    p.pairs[n] += s.pairs;
  }
  return p;
}

}  // namespace

NodeLoad node_load(const SyncPlan& plan, const Task& t) {
  NodeLoad load;
  const int workers = plan.workers;
  const bool colocated = plan.cluster.placement == ServerPlacement::colocated;
  switch (t.pattern) {
    case FlowPattern::none: break;
    case FlowPattern::to_shards:
    case FlowPattern::from_shards: {
      const Tensor& tensor = plan.tensors.at(std::size_t(t.tensor));
      const Placement p = place(plan, tensor, t.scale);
      double total = 0, total_pairs = 0;
      for (double b : p.bytes) total += b;
      for (double m : p.pairs) total_pairs += m;
      // Worker side: everything but what sits on its own node.
      double min_local = total, min_local_pairs = total_pairs;
      for (int w = 0; w < workers; ++w) {
        const auto n = std::size_t(plan.worker_node(w));
        if (p.bytes[n] < min_local) {
          min_local = p.bytes[n];
          min_local_pairs = p.pairs[n];
        }
      }
      if (!colocated) min_local = min_local_pairs = 0;
      const double worker_side = total - min_local;
      // Server side: every worker not on that node sends its slice.
      double server_side = 0, server_pairs = 0, off_host_total = 0;
      for (std::size_t n = 0; n < p.bytes.size(); ++n) {
        const bool has_worker = colocated && int(n) < workers;
        const double senders = workers - (has_worker ? 1 : 0);
        off_host_total += p.bytes[n] * senders;
        if (p.bytes[n] * senders > server_side) {
          server_side = p.bytes[n] * senders;
          server_pairs = p.pairs[n] * senders;
        }
      }
      const bool push = t.pattern == FlowPattern::to_shards;
      load.tx_role = push ? Role::worker : Role::server;
      load.rx_role = push ? Role::server : Role::worker;
      load.tx_bytes_max = push ? worker_side : server_side;
      load.rx_bytes_max = push ? server_side : worker_side;
      load.messages_max = std::max(total_pairs - min_local_pairs, server_pairs);
      load.total_bytes = off_host_total;
      break;
    }
    case FlowPattern::to_peers:
      load.tx_bytes_max = load.rx_bytes_max = (workers - 1) * t.bytes;
      load.messages_max = workers - 1;
      load.total_bytes = double(workers) * (workers - 1) * t.bytes;
      break;
    case FlowPattern::ring:
      if (workers >= 2) {
        const double per_worker = 2.0 * (workers - 1) / workers * t.bytes;
        load.tx_bytes_max = load.rx_bytes_max = per_worker;
        load.messages_max = 2.0 * (workers - 1);
        load.total_bytes = per_worker * workers;
        load.sequential_steps = 2 * (workers - 1);
      }
      break;
  }
  return load;
}

}  // namespace possim
