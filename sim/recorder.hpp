// What the SimGrid engine measures while it runs: bytes per node and link, GPU busy time,
// flows, and the timeline; and the Result they make, iterations that repeated reported
// from the one they repeat.
#pragma once
#include <string>
#include <vector>

#include "model/run/engine.hpp"
#include "model/plan/instance_graph.hpp"
#include "model/run/result.hpp"
#include "model/run/timeline.hpp"
#include "sim/network/nic_network.hpp"
#include "sim/platform.hpp"
#include "sim/repeat_detector.hpp"

namespace possim::sim {

class Recorder {
 public:
  Recorder(const SyncPlan& plan, const Platform& platform, const RunOptions& opt);

  void gpu_busy(int t, double seconds) { gpu_busy_[std::size_t(t)] += seconds; }
  // A network flow of iteration t from one node to another, `bytes` long, standing for
  // m.tx flows on the sender's tx, m.rx on the receiver's rx and `flows` in the cluster
  // (folded by classes, sim/fold.hpp; 1 otherwise).
  void flow_landed(int t, int src_node, int dst_node, double bytes, NicNetwork::Multiplicity m = {},
                   double flows = 1);
  // GPU busy time is per worker of `workers` (a run folded by classes weighs each
  // simulated worker's by its class's size); the plan's workers by default.
  void average_gpus_over(int workers) { gpu_workers_ = workers; }
  // A PCIe copy of worker w.
  void copy_landed(int t, int worker, bool d2h, double bytes);
  // The timeline (model/run/timeline.hpp): SimGrid says when each part ran.
  Timeline& timeline() { return timeline_; }
  // Simulated time has just moved across an interval of delta_s (Engine::on_time_advance,
  // after the sharing was solved for it): each PCIe link's load during that interval, for
  // its peak, where copies are SimGrid Comms (SimGrid's own solver; with the star backend
  // the PCIe star keeps its links' peaks, as the NIC network does). Every link, every
  // interval: a link's load also changes when a copy elsewhere starts or ends.
  void sample_link_loads(double delta_s);

  // Statistics, the timeline and per-layer rows into r (begun by begin_result); the NIC
  // links' peaks from `network`, the PCIe links' from `pcie` where copies went through one
  // (make_pcie_network), else as sampled.
  void fill(Result& r, const RepeatDetector& repeats, const InstanceGraph& graph, const NicNetwork& network,
            const NicNetwork* pcie = nullptr) const;

 private:
  std::size_t nic_tx(int node) const { return 2 * std::size_t(node); }
  std::size_t pcie_d2h(int w) const { return 2 * (platform_.nic.size() + std::size_t(w)); }
  void count_link(int t, std::size_t link, double bytes) { link_bytes_[std::size_t(t) * links_ + link] += bytes; }
  void fill_links(Result& r, const RepeatDetector& repeats, const NicNetwork& network, const NicNetwork* pcie) const;

  const SyncPlan& plan_;
  const Platform& platform_;
  Timeline timeline_;
  int k_;
  std::size_t nodes_, links_;  // links: NIC tx, rx per node, then PCIe d2h, h2d per worker
  // Per iteration (index t * nodes + n, t * links_ + link).
  std::vector<double> node_sent_, node_received_, link_bytes_, gpu_busy_;
  std::vector<const simgrid::s4u::Link*> link_;  // in the link order above
  std::vector<double> link_peak_bytes_per_s_;     // PCIe: highest load over an interval of positive length
  std::vector<double> link_capacity_;             // bytes/s, less rounding: no need to sample above
  std::vector<double> flows_;
  int gpu_workers_;
};

// What a comm of `bytes` puts on its links: SimGrid moves whole bytes, at least one.
std::uint64_t wire_bytes(double bytes);
// What every comm carries: nothing (its size is simulated).
int* payload();

}  // namespace possim::sim
