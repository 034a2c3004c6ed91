// The lmm backend of NicNetwork: each flow is a SimGrid Comm from its node's ctl host to
// the destination node's inbox, shared by SimGrid's own max-min solver.
//
// Flows leave through a few long-lived senders per node, each holding at most
// kCommsPerSender comms in flight (an actor waiting on many comms pays a scan of all of
// them at each completion), created as the node's flows in flight need them and kept
// until the run ends: memory grows with the senders, not with the flows. A sender runs on
// its node's ctl host (its comms cross the node's NIC as the node's own would) and waits
// on its comms and on a sentinel Exec that never ends by itself; a send cancels the
// sentinel, which wakes the sender at the very instant of the send without touching the
// sharing problem, so every flow starts when it was sent.
#include <deque>
#include <stdexcept>

#include "sim/network/nic_network.hpp"
#include "sim/recorder.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

namespace {

constexpr std::size_t kCommsPerSender = 64;

class LmmNetwork final : public NicNetwork {
 public:
  LmmNetwork(const Platform& p, std::vector<sg4::Mailbox*> node_inbox)
      : platform_(p), inbox_(std::move(node_inbox)), senders_(p.nic.size()) {
    for (const auto* l : p.nic)
      for (const sg4::Link* d : {l->get_link_up(), l->get_link_down()}) {
        link_.push_back(d);
        // Solved to SimGrid's precision (maxmin/precision): within 1e-9 of full is full.
        capacity_.push_back(d->get_bandwidth() * (1 - 1e-9));
      }
    peak_.assign(link_.size(), 0);
    // Every link, every interval of positive length: a link's load also changes when a
    // flow elsewhere starts or ends.
    sg4::Engine::on_time_advance_cb([this](double delta_s) {
      if (!(delta_s > 0)) return;
      for (std::size_t j = 0; j < link_.size(); ++j)
        if (peak_[j] < capacity_[j]) peak_[j] = std::max(peak_[j], link_[j]->get_usage());
    });
  }

  void send(int src_node, int dst_node, double bytes, Landed landed, Multiplicity m) override {
    // SimGrid's Comm takes no per-link weight: runs folded by classes need the star backend.
    if (!(m == Multiplicity{})) throw std::logic_error("lmm network: a flow standing for several");
    auto& pool = senders_[std::size_t(src_node)];
    Sender* s = nullptr;
    for (const auto& c : pool)
      if (c->open + c->queue.size() < kCommsPerSender) {
        s = c.get();
        break;
      }
    if (s == nullptr) {
      pool.push_back(std::make_unique<Sender>());
      s = pool.back().get();
      s->woken = true;  // takes its queue when it first runs
      sg4::Actor::create("send", platform_.ctl[std::size_t(src_node)], [this, s] { run_sender(s); });
    }
    s->queue.push_back(Out{inbox_[std::size_t(dst_node)], bytes, std::move(landed)});
    wake(s);
  }

  void stop() override {
    for (const auto& pool : senders_)
      for (const auto& s : pool) {
        s->stop = true;
        wake(s.get());
      }
  }

  double peak_bytes_per_s(std::size_t link) const override { return peak_[link]; }

 private:
  struct Out {
    sg4::Mailbox* dst;
    double bytes;
    Landed landed;
  };
  struct Sender {
    sg4::ExecPtr sentinel;   // never ends by itself: cancelled to wake the sender
    std::vector<Out> queue;  // sent, not yet started
    std::size_t open = 0;    // started, not yet landed
    bool woken = false;      // sentinel cancelled (or not yet made): it will look
    bool stop = false;
  };

  void wake(Sender* s) {
    if (s->woken) return;
    s->woken = true;
    // Held here: the sender may replace its sentinel before maestro runs this cancel.
    const sg4::ExecPtr sentinel = s->sentinel;
    sentinel->cancel();
  }

  void run_sender(Sender* s) {
    std::vector<sg4::ActivityPtr> waiting;  // [0]: the sentinel; then the comms in flight
    std::deque<Landed> open;
    for (;;) {
      if (s->woken) {  // new flows (sends meanwhile only queue theirs: woken is still set)
        s->sentinel = sg4::this_actor::exec_async(1e15);
        if (waiting.empty()) waiting.emplace_back();
        waiting[0] = s->sentinel;
        while (!s->queue.empty()) {
          std::vector<Out> batch;
          batch.swap(s->queue);
          for (Out& o : batch) {
            waiting.push_back(o.dst->put_async(payload(), std::uint64_t(o.bytes)));
            open.push_back(std::move(o.landed));
          }
          s->open += batch.size();
        }
        s->woken = false;  // from here on, a send cancels the sentinel
      }
      if (s->stop) return;  // the run is over: every flow has landed
      std::size_t done = 0;
      try {
        done = std::size_t(sg4::Activity::wait_any(waiting));
      } catch (const simgrid::CancelException&) {
        continue;  // the sentinel: woken
      }
      if (done == 0) continue;  // cannot happen (1e15 flops at 1 flop/s)
      const Landed landed = std::move(open[done - 1]);
      waiting.erase(waiting.begin() + long(done));
      open.erase(open.begin() + long(done - 1));
      --s->open;
      landed();
    }
  }

  const Platform& platform_;
  std::vector<sg4::Mailbox*> inbox_;
  std::vector<std::vector<std::unique_ptr<Sender>>> senders_;  // per node
  std::vector<const sg4::Link*> link_;                         // 2n tx, 2n+1 rx
  std::vector<double> capacity_, peak_;
};

}  // namespace

std::unique_ptr<NicNetwork> make_lmm_network(const Platform& platform, std::vector<sg4::Mailbox*> node_inbox) {
  return std::make_unique<LmmNetwork>(platform, std::move(node_inbox));
}

}  // namespace possim::sim
