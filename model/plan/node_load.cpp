#include "model/plan/node_load.hpp"

#include "model/plan/collective.hpp"
#include "model/plan/work_count.hpp"

#include <algorithm>
#include <vector>

namespace possim {

namespace {

// Bytes and pairs of a tensor's slices per node that holds any (sparse: a tensor
// touches at most min(pairs, shards) nodes, far fewer than a large cluster has).
struct NodeShare {
  int node;
  double bytes, pairs;
};

// In a buffer reused from call to call (a plan places every push's and pull's tensor),
// valid until the thread's next call.
const std::vector<NodeShare>& place(const SyncPlan& plan, const Tensor& tensor, double scale) {
  thread_local std::vector<NodeShare> p;
  p.clear();
  for (const Slice& s : tensor.slices) p.push_back(NodeShare{plan.shard_node(s.shard), s.bytes * scale, double(s.pairs)});
  const auto by_node = [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; };
  if (!std::is_sorted(p.begin(), p.end(), by_node)) std::sort(p.begin(), p.end(), by_node);
  std::size_t out = 0;  // merge shards that share a node
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (out > 0 && p[out - 1].node == p[i].node) {
      p[out - 1].bytes += p[i].bytes;
      p[out - 1].pairs += p[i].pairs;
    } else {
      p[out++] = p[i];
    }
  }
  p.resize(out);
  work::count(tensor.slices.size());
  return p;
}

// What a shard-pattern instance puts on the NIC of a node holding `bytes` of its slices,
// beyond what the node's worker sends or takes: its shards take (push) or send (pull) those
// from every other worker, and its own worker keeps them off the wire. (tx, rx).
std::pair<double, double> shard_side(bool push, bool has_worker, double bytes, int workers) {
  const double shard = bytes * (workers - (has_worker ? 1 : 0)), kept = has_worker ? bytes : 0.0;
  return push ? std::make_pair(-kept, shard) : std::make_pair(shard, -kept);
}

}  // namespace

NodeLoad node_load(const SyncPlan& plan, const Task& t, NodeBytes* per_node) {
  NodeLoad load;
  const int workers = plan.workers;
  const bool colocated = plan.cluster.placement == ServerPlacement::colocated;
  switch (t.pattern) {
    case FlowPattern::none: break;
    case FlowPattern::to_shards:
    case FlowPattern::from_shards: {
      const Tensor& tensor = plan.tensors.at(std::size_t(t.tensor));
      const std::vector<NodeShare>& p = place(plan, tensor, t.scale);
      double total = 0, total_pairs = 0;
      for (const NodeShare& n : p) {
        total += n.bytes;
        total_pairs += n.pairs;
      }
      // Worker side: everything but what sits on its own node. The least-loaded worker
      // node holds nothing if some worker node holds no slice.
      double min_local = 0, min_local_pairs = 0;
      if (colocated) {
        int worker_nodes_holding = 0;
        double least = total, least_pairs = total_pairs;
        for (const NodeShare& n : p)
          if (n.node < workers) {
            ++worker_nodes_holding;
            if (n.bytes < least) {
              least = n.bytes;
              least_pairs = n.pairs;
            }
          }
        if (worker_nodes_holding == workers) {
          min_local = least;
          min_local_pairs = least_pairs;
        }
      }
      const double worker_side = total - min_local;
      // Server side: every worker not on that node sends its slice. Node by node: the node
      // of a slice exchanges it with those workers, and its own worker keeps it off the wire.
      const bool push = t.pattern == FlowPattern::to_shards;
      double server_side = 0, off_host_total = 0;
      for (const NodeShare& n : p) {
        const bool has_worker = colocated && n.node < workers;
        const double senders = workers - (has_worker ? 1 : 0);
        off_host_total += n.bytes * senders;
        server_side = std::max(server_side, n.bytes * senders);
        if (per_node) {
          const auto [tx, rx] = shard_side(push, has_worker, n.bytes, workers);
          per_node->add_node(n.node, tx, rx);
        }
      }
      if (per_node) per_node->add_every_worker(push ? total : 0.0, push ? 0.0 : total);
      load.tx_role = push ? Role::worker : Role::server;
      load.rx_role = push ? Role::server : Role::worker;
      load.tx_bytes_max = push ? worker_side : server_side;
      load.rx_bytes_max = push ? server_side : worker_side;
      load.messages_max = total_pairs - min_local_pairs;
      load.total_bytes = off_host_total;
      // Means over the nodes of each role: colocated shards share the workers' nodes.
      const double worker_nodes = workers;
      const double server_nodes = colocated ? workers : plan.num_shards();
      load.tx_bytes_mean = off_host_total / (push ? worker_nodes : server_nodes);
      load.rx_bytes_mean = off_host_total / (push ? server_nodes : worker_nodes);

      break;
    }
    case FlowPattern::to_peers:
      load.tx_bytes_max = load.rx_bytes_max = (workers - 1) * t.bytes;
      load.tx_bytes_mean = load.rx_bytes_mean = load.tx_bytes_max;
      load.messages_max = workers - 1;
      load.total_bytes = double(workers) * (workers - 1) * t.bytes;
      if (per_node) per_node->add_every_worker(load.tx_bytes_max, load.rx_bytes_max);
      break;
    case FlowPattern::collective: {
      const CollectiveLoad c =
          collective_load(t.collective, workers, t.bytes, t.chunks, plan.rates.latency_s, plan.rates.per_message_s,
                          plan.nic_bytes_per_s());
      load.tx_bytes_max = c.tx_bytes_max;
      load.rx_bytes_max = c.rx_bytes_max;
      load.tx_bytes_mean = load.rx_bytes_mean = c.total_bytes / std::max(1, workers);
      load.messages_max = c.path_messages;  // message costs in series on the critical path
      load.total_bytes = c.total_bytes;
      load.sequential_steps = std::max(1, c.path_latencies);
      load.path_bytes = c.path_bytes;
      if (per_node) per_node->add_every_worker(load.tx_bytes_max, load.rx_bytes_max);  // symmetric
      break;
    }
  }
  return load;
}

std::pair<double, double> node_bytes(const SyncPlan& plan, const Task& t, const NodeLoad& load, int node) {
  const bool worker = node < plan.workers;
  if (t.pattern == FlowPattern::to_peers || t.pattern == FlowPattern::collective) {
    if (!worker) return {0, 0};
    return {load.tx_bytes_max, load.rx_bytes_max};  // every worker alike
  }
  if (t.pattern != FlowPattern::to_shards && t.pattern != FlowPattern::from_shards) return {0, 0};
  const bool colocated = plan.cluster.placement == ServerPlacement::colocated;
  const bool push = t.pattern == FlowPattern::to_shards;
  double total = 0, here = 0;
  for (const Slice& s : plan.tensors.at(std::size_t(t.tensor)).slices) {
    total += s.bytes * t.scale;
    if (plan.shard_node(s.shard) == node) here += s.bytes * t.scale;
  }
  work::count(plan.tensors.at(std::size_t(t.tensor)).slices.size());
  // As node_load adds it: a worker sends (push) or takes (pull) every slice, and the
  // shards here add theirs.
  const auto [tx, rx] = shard_side(push, colocated && worker, here, plan.workers);
  const double as_worker = worker ? total : 0.0;
  return push ? std::make_pair(as_worker + tx, rx) : std::make_pair(tx, as_worker + rx);
}

template <class F>
void NodeBytes::each_node(F&& f) const {
  int workers_seen = 0;
  for (const Own& own : own_) {
    const bool worker = own.node < workers_;
    workers_seen += worker ? 1 : 0;
    f(own.node, (worker ? every_worker_[0] : 0.0) + own.tx, (worker ? every_worker_[1] : 0.0) + own.rx);
  }
  if (workers_seen < workers_) {  // the worker nodes holding no slice, alike: the lowest
    int plain = 0;
    while (holds(plain)) ++plain;
    f(plain, every_worker_[0], every_worker_[1]);
  }
}

NodeBytes::Own& NodeBytes::own_of(int node) {
  std::uint32_t at = where_.find(std::uint64_t(node));
  if (at == FlatIndex::kNone) {
    at = std::uint32_t(own_.size());
    where_.insert(std::uint64_t(node), at);
    own_.push_back(Own{node});
  }
  return own_[at];
}

int NodeBytes::busiest_node() const {
  int best = 0;
  double most = -1;
  each_node([&](int node, double tx, double rx) {
    const double load = std::max(tx, rx);
    if (load > most || (load == most && node < best)) {
      most = load;
      best = node;
    }
  });
  return best;
}

double NodeBytes::busiest(int dir) const {
  double most = 0;
  each_node([&](int, double tx, double rx) { most = std::max(most, dir == 0 ? tx : rx); });
  return most;
}

}  // namespace possim
