// Max-min fair sharing of the NIC links of a non-blocking switch, advanced in time: the
// fluid flow model SimGrid's CM02 applies to possim's star (sim/platform.hpp), solved by
// a solver that knows the star's shape.
//
// The model (SimGrid CM02 as sim/platform.cpp configures it: no cross-traffic, no TCP
// window bound, bandwidth and latency factors 1): a flow a -> b waits its route's latency,
// then crosses exactly two links, a's tx and b's rx (a == b included: out to the switch and
// back). Every link's capacity is shared max-min fairly among the flows moving through it,
// all with the same weight (CM02 weighs a flow by its route's latency, the same on every
// route here). The allocation is the unique max-min one, found by progressive filling.
//
// Why a solver of its own. SimGrid's general solver re-solves every coupled flow at each
// event by scanning constraints and elements; at 256 nodes an iteration holds ~10^5 flows
// in flight (one per worker, shard and layer) and the re-solves took most of the run
// (bench/results/simgrid_scale.md). Here flows between the same two nodes always get the
// same rate, so the solver works on the node pairs with flows moving (however many flows
// each holds), each with a processor-sharing clock: a flow lands when its pair
// has served it its bytes. One solve is O(pairs log links), whatever the node count; a
// landing costs O(log flows). Between solves an event walks the moving pairs' clocks in
// flat arrays (Clocks): the same arithmetic, in the same order, as a walk over the pairs
// themselves, so results do not move by a bit, at a few nanoseconds a pair
// (bench/results/simgrid_scale.md).
// Measured (bench/results/simgrid_scale.md): full 256-node runs 16-30x faster than with
// SimGrid's solver, with the same results (1.1e-8 relative at worst in the tests).
//
// Time resolution: a flow lands, and a latency ends, within kResolution_s of its exact
// instant (as SimGrid's surf/precision), so flows due within that window land together.
// tests/sim/test_star_sharing.cpp holds it to hand-solved allocations, and
// tests/sim/test_simgrid_network.cpp to SimGrid's own solver on whole runs.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "model/plan/flat_index.hpp"

namespace possim::sim {

// How many flows of the modelled cluster one flow stands for on each of its links: 1 and
// 1 in a full run; a run folded by classes of nodes (sim/fold.hpp) sends one flow for a
// whole class's, which takes tx flows' share of src's tx and rx flows' of dst's rx.
// Fixed per (src, dst): every flow between two nodes stands for as many.
struct Multiplicity {
  double tx = 1, rx = 1;
  bool operator==(const Multiplicity& o) const { return tx == o.tx && rx == o.rx; }
};

class StarSharing {
 public:
  static constexpr double kResolution_s = 1e-9;
  using FlowId = std::uint32_t;
  using Multiplicity = sim::Multiplicity;

  // Per node: its NIC's tx and rx capacity, bytes/s (> 0).
  StarSharing(std::vector<double> tx_bytes_per_s, std::vector<double> rx_bytes_per_s);

  // A flow of `bytes` (> 0) from src's tx to dst's rx, posted now: it moves from now +
  // latency_s. Its id is reused once it has landed.
  FlowId add(int src, int dst, double bytes, double latency_s, Multiplicity m = {});
  // Moves simulated time to t_s (>= now) at the rates of the last solve; the flows that
  // have landed by then are appended to `landed`, in the order they were added.
  void advance(double t_s, std::vector<FlowId>& landed);
  // When the next flow lands or ends its latency, at the current flows' rates (solved
  // here if flows started or landed since): +infinity when nothing is in flight.
  double next_event_s();

  double now_s() const { return now_s_; }
  std::size_t in_flight() const { return in_flight_; }
  // The current max-min rate of a moving flow, bytes/s (0 while it waits its latency): of
  // each of the flows it stands for.
  double rate_bytes_per_s(FlowId f);
  // Link j (node n: 2n tx, 2n+1 rx): its load now, and its highest load over an interval
  // of positive length so far, bytes/s.
  double load_bytes_per_s(std::size_t link);
  double peak_bytes_per_s(std::size_t link) const { return peak_[link]; }

 private:
  struct Flow {
    std::uint64_t seq = 0;  // order of add(): the order landings are reported in
    std::uint32_t pair = kNone;
    int src = 0, dst = 0;
    double bytes = 0;
    double target = 0;  // its pair's served bytes at which it has landed
    Multiplicity m;
  };
  // Flows moving between two nodes, at one rate each, and a processor-sharing clock: the
  // bytes each has received since the pair was last idle. The clock, the rate, the first
  // flow's target, the moving count and the multiplicity of each of its flows live in
  // arrays by place in active_ (Clocks), which every event walks in order.
  struct Pair {
    int src = 0, dst = 0;
    std::vector<std::pair<double, FlowId>> due;  // min-heap of (target, flow)
  };
  // Per moving pair, by its place in active_: served bytes, rate per flow (bytes/s), the
  // target of its first flow to land (due.front()), and (Slot) what the solver reads: its
  // links, its moving flows and the flows of the cluster each stands for on either link.
  // In place order, so that a solve and an event walk flat arrays, not pair_ at random;
  // the solver's fields in one record, so that a pair that starts or idles touches few
  // cache lines (PS starts and idles a pair per flow).
  struct Slot {
    std::uint32_t tx, rx, moving;
    double mult_tx, mult_rx;
  };
  struct Clocks {
    std::vector<double> served, rate, head;
    std::vector<Slot> slot;
    void push(std::uint32_t tx_link, std::uint32_t rx_link, const Multiplicity& m) {
      served.push_back(0);
      rate.push_back(0);
      head.push_back(0);
      slot.push_back(Slot{tx_link, rx_link, 0, m.tx, m.rx});
    }
    void move(std::size_t to, std::size_t from) {
      served[to] = served[from];
      rate[to] = rate[from];
      head[to] = head[from];
      slot[to] = slot[from];
    }
    void pop() {
      served.pop_back();
      rate.pop_back();
      head.pop_back();
      slot.pop_back();
    }
  };
  struct Waiting {
    double until_s;
    std::uint64_t seq;
    FlowId flow;
    bool operator>(const Waiting& o) const { return until_s != o.until_s ? until_s > o.until_s : seq > o.seq; }
  };
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  std::size_t tx(int node) const { return 2 * std::size_t(node); }
  std::size_t rx(int node) const { return 2 * std::size_t(node) + 1; }
  std::uint64_t pair_key(int src, int dst) const {
    return std::uint64_t(src) * (capacity_.size() / 2) + std::uint64_t(dst);
  }
  void start_moving(FlowId f);
  // A flow of the pair in slot q started (+1) or landed (-1): its moving count and its
  // links' flows.
  void count_flow(Slot& q, int delta);
  // The pair in slot q started (+1) or idled (-1): its links' pair counts and used_.
  void count_pair(const Slot& q, int delta);
  void solve();
  // The solver's heap of links, least share on top.
  void place(std::size_t i, std::uint32_t link);
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void remove_top();

  std::vector<double> capacity_;  // per link
  std::vector<double> load_, peak_;
  double now_s_ = 0;
  std::uint64_t next_seq_ = 0;
  std::size_t in_flight_ = 0;
  bool solved_ = true;
  // When next_event_s last foresaw the first landing, at the rates of the last solve.
  double first_landing_s_ = -std::numeric_limits<double>::infinity();
  std::vector<Flow> flow_;
  std::vector<FlowId> free_flow_;
  std::vector<Waiting> waiting_;  // min-heap: flows in their latency
  std::vector<Pair> pair_;
  std::vector<std::uint32_t> free_pair_, active_;  // active_: pairs with moving flows
  std::vector<std::uint32_t> active_at_;           // per pair: its index in active_
  FlatIndex pair_of_;  // by pair_key()
  // Kept as pairs start, land and idle, so that a solve need not find them in a pass over
  // every moving pair (~800,000 at 4,096 nodes, ~1% of them changed since the last solve):
  // per link, its moving flows (counted by multiplicity: whole numbers, so the running sum
  // is exact) and its moving pairs; the links with any (used_, in no order; used_at_: each
  // one's place in it, kNone if none).
  std::vector<double> flows_on_;
  std::vector<std::uint32_t> pairs_on_, used_, used_at_;
  // Solver scratch, kept between solves; per link, only the used links' entries are read.
  std::vector<double> left_, share_;  // per link: capacity not yet given, and per unfixed flow
  std::vector<double> users_;         // per link: unfixed flows (counted by multiplicity)
  std::vector<std::uint32_t> order_, loaded_;  // links of moving pairs, ascending: this solve's, the last one's
  std::vector<std::uint32_t> local_;           // per link: its place in order_
  // Per used link k, its pairs: member_[first_[k]..first_[k+1]), each with the pair's
  // other link and its flows there, so the filling reads one link's pairs in sequence.
  struct Member {
    std::uint32_t slot, other;
    double flows_other;
  };
  std::vector<std::uint32_t> first_, at_;
  std::vector<Member> member_;
  std::vector<std::uint32_t> heap_, heap_at_;  // links not yet fixed; each one's place in heap_ (kNone: none)
  // Per moving pair: its rate is fixed. A byte, not rate >= 0: this test is the filling's
  // one read at random, and bytes keep it in cache.
  std::vector<std::uint8_t> fixed_;
  Clocks clock_;  // in active_ order
};

}  // namespace possim::sim
