// The star backend of NicNetwork: possim's own max-min solver (star_sharing.hpp), driven
// by one actor. The actor sleeps until the next landing or end of a latency, or until a
// send wakes it at the instant of the send; it then moves the flows to now, runs the
// landed flows' calls, starts what was sent, and re-solves. The same backend carries the
// PCIe copies (make_pcie_network): each worker's GPU and host memory are two more
// endpoints of a star, so a copy costs a flow record, not an actor with a stack.
#include <limits>

#include "sim/network/nic_network.hpp"
#include "sim/network/star_sharing.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

namespace {

// One endpoint of a star: its link's capacity and latency each way.
struct Endpoint {
  double tx_bytes_per_s, rx_bytes_per_s, tx_latency_s, rx_latency_s;
};

Endpoint endpoint(const sg4::SplitDuplexLink* l) {
  return {l->get_link_up()->get_bandwidth(), l->get_link_down()->get_bandwidth(), l->get_link_up()->get_latency(),
          l->get_link_down()->get_latency()};
}

class StarNetwork final : public NicNetwork {
 public:
  StarNetwork(const std::vector<Endpoint>& ends, sg4::Host* host, const std::string& name)
      : sharing_(field(ends, &Endpoint::tx_bytes_per_s), field(ends, &Endpoint::rx_bytes_per_s)),
        tx_latency_s_(field(ends, &Endpoint::tx_latency_s)),
        rx_latency_s_(field(ends, &Endpoint::rx_latency_s)),
        mutex_(sg4::Mutex::create()),
        wake_(sg4::ConditionVariable::create()) {
    sg4::Actor::create(name, host, [this] { run(); });
  }

  void send(int src_node, int dst_node, double bytes, Landed landed, Multiplicity m) override {
    sent_.push_back(Sent{src_node, dst_node, bytes, std::move(landed), m});
    if (!running_ && held_ == 0) wake_->notify_one();
  }
  void hold() override { ++held_; }
  void release() override {
    if (--held_ == 0 && !running_ && !sent_.empty()) wake_->notify_one();
  }
  void stop() override {
    stop_ = true;
    if (!running_) wake_->notify_one();
  }
  double peak_bytes_per_s(std::size_t link) const override { return sharing_.peak_bytes_per_s(link); }

 private:
  static std::vector<double> field(const std::vector<Endpoint>& ends, double Endpoint::*f) {
    std::vector<double> out;
    out.reserve(ends.size());
    for (const Endpoint& e : ends) out.push_back(e.*f);
    return out;
  }

  struct Sent {
    int src, dst;
    double bytes;
    Landed landed;
    Multiplicity m;
  };

  void run() {
    std::unique_lock<sg4::Mutex> lock(*mutex_);
    std::vector<StarSharing::FlowId> landed;
    for (;;) {
      landed.clear();
      sharing_.advance(sg4::Engine::get_clock(), landed);
      for (const StarSharing::FlowId f : landed) {
        const Landed call = std::move(landed_[f]);
        call();  // may send: queued in sent_, started below at this instant
      }
      while (!sent_.empty()) {
        std::vector<Sent> batch;
        batch.swap(sent_);
        for (Sent& s : batch) {
          const auto f = sharing_.add(s.src, s.dst, s.bytes, tx_latency_s_[std::size_t(s.src)] +
                                                                 rx_latency_s_[std::size_t(s.dst)], s.m);
          if (landed_.size() <= f) landed_.resize(std::size_t(f) + 1);
          landed_[f] = std::move(s.landed);
        }
      }
      const double next_s = sharing_.next_event_s();
      if (stop_ && sharing_.in_flight() == 0) return;
      running_ = false;
      if (next_s == std::numeric_limits<double>::infinity()) wake_->wait(lock);
      else wake_->wait_until(lock, next_s);
      running_ = true;
    }
  }

  StarSharing sharing_;
  std::vector<double> tx_latency_s_, rx_latency_s_;
  std::vector<Landed> landed_;  // per flow id
  std::vector<Sent> sent_;      // since the actor last ran
  sg4::MutexPtr mutex_;
  sg4::ConditionVariablePtr wake_;
  bool running_ = true;  // until it first waits, the actor will look at sent_ anyway
  bool stop_ = false;
  int held_ = 0;  // hold()s not yet released
};

}  // namespace

std::unique_ptr<NicNetwork> make_star_network(const Platform& platform) {
  std::vector<Endpoint> ends;
  for (const auto* l : platform.nic) ends.push_back(endpoint(l));
  return std::make_unique<StarNetwork>(ends, platform.ctl[0], "network");
}

std::unique_ptr<NicNetwork> make_pcie_network(const Platform& platform) {
  // A copy's route in SimGrid's star zone: the GPU's PCIe link, then the host memory's bus
  // (sim/platform.cpp): 1e15 bytes/s and no latency, never the bottleneck, kept as it is.
  std::vector<Endpoint> ends;
  for (const auto* l : platform.pcie) ends.push_back(endpoint(l));
  for (const auto* l : platform.membus) ends.push_back(endpoint(l));
  return std::make_unique<StarNetwork>(ends, platform.ctl[0], "pcie");
}

}  // namespace possim::sim
