// The machines a scenario describes: nodes with GPUs and one or more NICs each, behind a
// non-blocking switch. Plans and engines read it; it sits in model/input because the
// scenario holds one.
#pragma once

#include <optional>
#include <string>

namespace possim {

enum class ServerPlacement { colocated, dedicated };

// How bytes cross the network. tcp: kernel sockets, each byte staged through host memory,
// the payload capped by the host's TCP stack; rdma: RDMA verbs (InfiniBand, RoCE) with
// GPUDirect, the NIC reading and writing GPU memory, no host copy and no host ceiling.
enum class Transport { tcp, rdma };

struct Cluster {
  int nodes = 1;            // worker nodes
  int gpus_per_node = 1;    // GPUs of a node gather on a leader GPU before syncing
  double nic_gbps = 10;     // line rate of each NIC, each direction
  // NICs per node, rail-aligned: GPU g sends on NIC g mod nics_per_node (to the same rail
  // of every other node). A leader GPU's traffic uses one; SyncPlan::rails says how many a
  // plan's traffic spreads over.
  int nics_per_node = 1;
  double latency_s = 50e-6; // one-way latency between two nodes
  int server_shards = 1;    // parameter-server shards
  ServerPlacement placement = ServerPlacement::colocated;
  Transport transport = Transport::tcp;

  int total_gpus() const { return nodes * gpus_per_node; }
  // Nodes that exist: workers plus one node per dedicated shard.
  int total_nodes() const {
    return placement == ServerPlacement::dedicated ? nodes + server_shards : nodes;
  }
  // Node that hosts shard s.
  int shard_node(int s) const {
    return placement == ServerPlacement::dedicated ? nodes + s : s % nodes;
  }
  double nic_bytes_per_s() const { return nic_gbps * 1e9 / 8.0; }
};

const char* to_string(ServerPlacement p);
const char* to_string(Transport t);
std::optional<Transport> parse_transport(const std::string& s);

}  // namespace possim
