#include "sim/recorder.hpp"

#include <algorithm>

#include "model/run/engine.hpp"

namespace possim::sim {

std::uint64_t wire_bytes(double bytes) { return std::uint64_t(std::max(1.0, bytes)); }

int* payload() {
  static int nothing = 0;
  return &nothing;
}

Recorder::Recorder(const SyncPlan& plan, const Platform& platform, const RunOptions& opt)
    : plan_(plan), platform_(platform), timeline_(plan, opt),
      k_(std::max(1, plan.iterations)), gpu_workers_(plan.workers) {
  nodes_ = std::size_t(plan.cluster.total_nodes());
  links_ = 2 * (nodes_ + std::size_t(plan.workers));
  const std::size_t k = std::size_t(k_);
  node_sent_.assign(nodes_ * k, 0);
  node_received_.assign(nodes_ * k, 0);
  link_bytes_.assign(links_ * k, 0);
  gpu_busy_.assign(k, 0);
  flows_.assign(k, 0);
  for (const auto* links : {&platform.nic, &platform.pcie})
    for (const auto* l : *links) {
      link_.push_back(l->get_link_up());
      link_.push_back(l->get_link_down());
    }
  link_peak_bytes_per_s_.assign(link_.size(), 0);
  // The sharing is solved to SimGrid's precision (1e-5 relative by default, maxmin/precision):
  // a load within 1e-9 of the capacity is the capacity.
  for (const auto* l : link_) link_capacity_.push_back(l->get_bandwidth() * (1 - 1e-9));
}

void Recorder::sample_link_loads(double delta_s) {
  if (!(delta_s > 0)) return;
  for (std::size_t j = pcie_d2h(0); j < link_.size(); ++j)
    if (link_peak_bytes_per_s_[j] < link_capacity_[j])  // a link that ran full cannot go higher
      link_peak_bytes_per_s_[j] = std::max(link_peak_bytes_per_s_[j], link_[j]->get_usage());
}

void Recorder::flow_landed(int t, int src_node, int dst_node, double bytes, NicNetwork::Multiplicity m,
                           double flows) {
  const std::size_t i = std::size_t(t);
  flows_[i] += flows;
  node_sent_[i * nodes_ + std::size_t(src_node)] += bytes * m.tx;
  node_received_[i * nodes_ + std::size_t(dst_node)] += bytes * m.rx;
  count_link(t, nic_tx(src_node), double(wire_bytes(bytes)) * m.tx);
  count_link(t, nic_tx(dst_node) + 1, double(wire_bytes(bytes)) * m.rx);
}

void Recorder::copy_landed(int t, int worker, bool d2h, double bytes) {
  count_link(t, pcie_d2h(worker) + (d2h ? 0 : 1), double(wire_bytes(bytes)));
}

// Links: the bytes each flow and copy put on them, and their busiest interval
// (sample_link_loads; a repeated iteration cannot exceed the one it repeats).
void Recorder::fill_links(Result& r, const RepeatDetector& repeats, const NicNetwork& network,
                          const NicNetwork* pcie) const {
  const double run_s = r.iteration_end_s.back();
  const auto use = [&](const simgrid::s4u::Link* l, const std::string& name) {
    const std::size_t j = r.links.size();
    double bytes = 0;
    for (int t = 0; t < k_; ++t) bytes += link_bytes_[std::size_t(repeats.source(t)) * links_ + j];
    LinkUse u;
    u.link = name;
    u.bytes_per_iteration = bytes / k_;
    const double peak = j < pcie_d2h(0) ? network.peak_bytes_per_s(j)
                        : pcie     ? pcie->peak_bytes_per_s(j - pcie_d2h(0))
                                   : link_peak_bytes_per_s_[j];
    u.peak_utilization = peak / l->get_bandwidth();
    u.mean_utilization = run_s > 0 ? bytes / (run_s * l->get_bandwidth()) : 0;
    r.links.push_back(u);
  };
  for (std::size_t n = 0; n < nodes_; ++n) {
    use(platform_.nic[n]->get_link_up(), "nic-" + std::to_string(n) + " tx");
    use(platform_.nic[n]->get_link_down(), "nic-" + std::to_string(n) + " rx");
  }
  for (std::size_t w = 0; w < platform_.pcie.size(); ++w) {
    use(platform_.pcie[w]->get_link_up(), "pcie-" + std::to_string(w) + " d2h");
    use(platform_.pcie[w]->get_link_down(), "pcie-" + std::to_string(w) + " h2d");
  }
}

void Recorder::fill(Result& r, const RepeatDetector& repeats, const InstanceGraph& graph,
                    const NicNetwork& network, const NicNetwork* pcie) const {
  // Per-iteration amounts summed over all k iterations, repeated ones from their source.
  const auto total = [&](const std::vector<double>& per_iteration, std::size_t stride, std::size_t j) {
    double sum = 0;
    for (int t = 0; t < k_; ++t) sum += per_iteration[std::size_t(repeats.source(t)) * stride + j];
    return sum;
  };
  r.gpu_busy_s = total(gpu_busy_, 1, 0) / (double(k_) * gpu_workers_);
  r.gpu_stall_s = std::max(0.0, r.iteration_s - r.gpu_busy_s);
  double sent = 0, received = 0;
  for (std::size_t n = 0; n < nodes_; ++n) {
    const double s = total(node_sent_, nodes_, n) / k_, rcv = total(node_received_, nodes_, n) / k_;
    r.sent_bytes_max = std::max(r.sent_bytes_max, s);
    r.received_bytes_max = std::max(r.received_bytes_max, rcv);
    sent += s;
    received += rcv;
  }
  r.sent_bytes_mean = sent / double(nodes_);
  r.received_bytes_mean = received / double(nodes_);
  double flows = 0;
  for (int t = 0; t < k_; ++t) flows += flows_[std::size_t(repeats.source(t))];
  r.flows_per_iteration = flows / k_;
  // Worker 0 (or the first slice) stands for the rest in the per-layer table.
  const int last = k_ - 1, from = repeats.source(last);
  fill_layer_rows(plan_, r, [&](std::size_t i) {
    const std::size_t id = graph.index(Instance{0, std::uint32_t(i), 0});
    return std::make_pair(repeats.started(from, id) + repeats.shift(last),
                          repeats.finished(from, id) + repeats.shift(last));
  });
  fill_links(r, repeats, network, pcie);
  const int simulated = r.simulated_iterations;
  for (const TimelineEvent& e : timeline_.events())
    if (e.iteration < simulated) r.timeline.push_back(e);
  for (int t = simulated; t < k_; ++t)
    for (const TimelineEvent& e : timeline_.events())
      if (e.iteration == repeats.steady()) {
        TimelineEvent copy = e;
        copy.iteration = t;
        copy.start_s += repeats.shift(t);
        r.timeline.push_back(copy);
      }
}

}  // namespace possim::sim
