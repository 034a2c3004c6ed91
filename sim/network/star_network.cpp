// The star backend of NicNetwork: possim's own max-min solver (star_sharing.hpp), driven
// by one actor. The actor sleeps until the next landing or end of a latency, or until a
// send wakes it at the instant of the send; it then moves the flows to now, runs the
// landed flows' calls, starts what was sent, and re-solves.
#include <limits>

#include "sim/network/nic_network.hpp"
#include "sim/network/star_sharing.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

namespace {

std::vector<double> bandwidths(const Platform& p, bool up) {
  std::vector<double> out;
  for (const auto* l : p.nic) out.push_back((up ? l->get_link_up() : l->get_link_down())->get_bandwidth());
  return out;
}

class StarNetwork final : public NicNetwork {
 public:
  explicit StarNetwork(const Platform& p)
      : sharing_(bandwidths(p, true), bandwidths(p, false)),
        mutex_(sg4::Mutex::create()),
        wake_(sg4::ConditionVariable::create()) {
    for (const auto* l : p.nic) {
      tx_latency_s_.push_back(l->get_link_up()->get_latency());
      rx_latency_s_.push_back(l->get_link_down()->get_latency());
    }
    sg4::Actor::create("network", p.ctl[0], [this] { run(); });
  }

  void send(int src_node, int dst_node, double bytes, Landed landed, Multiplicity m) override {
    sent_.push_back(Sent{src_node, dst_node, bytes, std::move(landed), m});
    if (!running_) wake_->notify_one();
  }
  void stop() override {
    stop_ = true;
    if (!running_) wake_->notify_one();
  }
  double peak_bytes_per_s(std::size_t link) const override { return sharing_.peak_bytes_per_s(link); }

 private:
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
};

}  // namespace

std::unique_ptr<NicNetwork> make_star_network(const Platform& platform) {
  return std::make_unique<StarNetwork>(platform);
}

}  // namespace possim::sim
