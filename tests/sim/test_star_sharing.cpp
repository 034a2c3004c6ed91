// possim's max-min solver for the star (sim/network/star_sharing.hpp) against allocations
// and landing times worked out by hand from progressive filling.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/network/star_sharing.hpp"

using possim::sim::StarSharing;
using Approx = Catch::Detail::Approx;

namespace {

std::vector<StarSharing::FlowId> step(StarSharing& s) {
  std::vector<StarSharing::FlowId> landed;
  s.advance(s.next_event_s(), landed);
  return landed;
}

}  // namespace

TEST_CASE("star sharing: the max-min allocation, by hand", "[star_sharing]") {
  // Nodes A=0, B=1, C=2. tx: A 10, B 10, C 10; rx: A 10, B 10, C 6 (bytes/s).
  // Flows A->C, B->C, A->B. Shares: rx C 6/2 = 3 is the tightest: A->C = B->C = 3. Then
  // tx A has 10 - 3 = 7 left for A->B alone; rx B 10 >= 7: A->B = 7.
  StarSharing s({10, 10, 10}, {10, 10, 6});
  const auto ac = s.add(0, 2, 1e6, 0), bc = s.add(1, 2, 1e6, 0), ab = s.add(0, 1, 1e6, 0);
  CHECK(s.rate_bytes_per_s(ac) == Approx(3));
  CHECK(s.rate_bytes_per_s(bc) == Approx(3));
  CHECK(s.rate_bytes_per_s(ab) == Approx(7));
  CHECK(s.load_bytes_per_s(0) == Approx(10));  // tx A: full
  CHECK(s.load_bytes_per_s(5) == Approx(6));   // rx C: full
  CHECK(s.load_bytes_per_s(3) == Approx(7));   // rx B
  CHECK(s.load_bytes_per_s(2) == Approx(3));   // tx B
  CHECK(s.peak_bytes_per_s(0) == 0);           // no interval of positive length yet
}

TEST_CASE("star sharing: flows between the same nodes share, and the rest speeds up when "
          "one lands", "[star_sharing]") {
  // 100 B/s links; 100 and 300 bytes from node 0 to node 1: 50 B/s each until the first
  // lands at 2 s; the second has 200 left alone at 100 B/s: lands at 4 s.
  StarSharing s({100, 100}, {100, 100});
  const auto small = s.add(0, 1, 100, 0), large = s.add(0, 1, 300, 0);
  CHECK(s.rate_bytes_per_s(small) == Approx(50));
  CHECK(s.next_event_s() == Approx(2));
  auto landed = step(s);
  REQUIRE(landed.size() == 1);
  CHECK(landed[0] == small);
  CHECK(s.rate_bytes_per_s(large) == Approx(100));
  CHECK(s.next_event_s() == Approx(4));
  landed = step(s);
  REQUIRE(landed.size() == 1);
  CHECK(landed[0] == large);
  CHECK(s.in_flight() == 0);
  CHECK(s.next_event_s() == std::numeric_limits<double>::infinity());
  CHECK(s.peak_bytes_per_s(0) == Approx(100));
  CHECK(s.peak_bytes_per_s(1) == 0);  // rx of node 0: unused
}

TEST_CASE("star sharing: a flow takes no bandwidth during its latency", "[star_sharing]") {
  // 0 -> 1, 100 bytes, no latency; 2 -> 1, 100 bytes, 0.5 s latency. rx 1 is shared only
  // from 0.5 s: the first moves 100 B/s alone for 0.5 s (50 bytes), then 50 B/s each: it
  // lands at 1.5 s; the second has 50 left, alone again: 100 B/s, lands at 2 s.
  StarSharing s({100, 100, 100}, {100, 100, 100});
  const auto first = s.add(0, 1, 100, 0), second = s.add(2, 1, 100, 0.5);
  CHECK(s.rate_bytes_per_s(second) == 0);
  CHECK(s.next_event_s() == Approx(0.5));
  CHECK(step(s).empty());
  CHECK(s.rate_bytes_per_s(first) == Approx(50));
  CHECK(s.next_event_s() == Approx(1.5));
  CHECK(step(s) == std::vector<StarSharing::FlowId>{first});
  CHECK(s.next_event_s() == Approx(2.0));
  CHECK(step(s) == std::vector<StarSharing::FlowId>{second});
}

TEST_CASE("star sharing: flows due together land together, in the order they were added, and "
          "a flow to its own node crosses its tx and its rx", "[star_sharing]") {
  StarSharing s({100, 100}, {100, 100});
  // Node 1 to itself and node 0 to node 1: rx 1 shared (50 each); tx 1 and tx 0 not full.
  const auto self = s.add(1, 1, 100, 0), other = s.add(0, 1, 100 * (1 + 1e-12), 0);
  CHECK(s.rate_bytes_per_s(self) == Approx(50));
  CHECK(s.load_bytes_per_s(2) == Approx(50));  // tx 1
  CHECK(s.load_bytes_per_s(3) == Approx(100)); // rx 1
  // 1e-10 bytes apart at 50 B/s: 2e-12 s, within the resolution: one event, add order.
  CHECK(step(s) == std::vector<StarSharing::FlowId>{self, other});
  CHECK(s.now_s() == Approx(2));
}

TEST_CASE("star sharing: bad flows are refused", "[star_sharing]") {
  CHECK_THROWS(StarSharing({1, 0}, {1, 1}));
  StarSharing s({1}, {1});
  CHECK_THROWS(s.add(0, 1, 1, 0));
  CHECK_THROWS(s.add(0, 0, 0, 0));
  CHECK_THROWS(s.add(0, 0, 1, -1));
  std::vector<StarSharing::FlowId> landed;
  s.advance(1, landed);
  CHECK_THROWS(s.advance(0.5, landed));
  // Flows between the same two nodes moving at once stand for as many flows each.
  StarSharing t({1, 1}, {1, 1});
  t.add(0, 1, 1, 0, {2, 3});
  CHECK_NOTHROW(t.add(0, 1, 1, 0, {2, 3}));
  CHECK_THROWS(t.add(0, 1, 1, 0, {2, 2}));
  CHECK_THROWS(t.add(0, 1, 1, 0, {3, 3}));
  // A flow stands for a whole number of flows (a class's nodes), at least one: the links'
  // running flow counts are exact only for whole numbers.
  StarSharing u({1, 1}, {1, 1});
  CHECK_THROWS(u.add(0, 1, 1, 0, {1.5, 1}));
  CHECK_THROWS(u.add(0, 1, 1, 0, {1, 0.5}));
  CHECK_THROWS(u.add(0, 1, 1, 0, {std::numeric_limits<double>::infinity(), 1}));
  CHECK_THROWS(u.add(0, 1, 1, 0, {std::nan(""), 1}));
  CHECK_NOTHROW(u.add(0, 1, 1, 0, {4, 2}));
}

namespace {

// A reference for the solver: every flow on its own (no pairs, no kept clocks, no heaps),
// max-min shares by progressive filling over all links at every event, time moved to the
// next landing or latency end. O(flows x links) per event: small cases only.
struct NaiveFlow {
  int src, dst;
  double left, start_s, landed_s = -1;
};

std::vector<double> naive_landings(int nodes, double cap, std::vector<NaiveFlow> f) {
  double now = 0;
  for (;;) {
    std::vector<int> moving;
    for (std::size_t i = 0; i < f.size(); ++i)
      if (f[i].landed_s < 0 && f[i].start_s <= now + StarSharing::kResolution_s) moving.push_back(int(i));
    std::vector<double> rate(f.size(), -1), left(std::size_t(2 * nodes), cap);
    for (;;) {  // progressive filling
      std::vector<int> users(std::size_t(2 * nodes), 0);
      for (int i : moving)
        if (rate[std::size_t(i)] < 0) ++users[std::size_t(2 * f[std::size_t(i)].src)], ++users[std::size_t(2 * f[std::size_t(i)].dst + 1)];
      int b = -1;
      double share = std::numeric_limits<double>::infinity();
      for (int j = 0; j < 2 * nodes; ++j)
        if (users[std::size_t(j)] > 0 && left[std::size_t(j)] / users[std::size_t(j)] < share)
          share = left[std::size_t(j)] / users[std::size_t(j)], b = j;
      if (b < 0) break;
      for (int i : moving) {
        const NaiveFlow& x = f[std::size_t(i)];
        if (rate[std::size_t(i)] >= 0 || (2 * x.src != b && 2 * x.dst + 1 != b)) continue;
        rate[std::size_t(i)] = share;
        left[std::size_t(2 * x.src)] -= share;
        left[std::size_t(2 * x.dst + 1)] -= share;
      }
    }
    double next = std::numeric_limits<double>::infinity();
    for (int i : moving) next = std::min(next, now + f[std::size_t(i)].left / rate[std::size_t(i)]);
    for (const NaiveFlow& x : f)
      if (x.landed_s < 0 && x.start_s > now + StarSharing::kResolution_s) next = std::min(next, x.start_s);
    if (next == std::numeric_limits<double>::infinity()) break;
    for (int i : moving) {
      NaiveFlow& x = f[std::size_t(i)];
      x.left -= rate[std::size_t(i)] * (next - now);
      if (x.left <= rate[std::size_t(i)] * StarSharing::kResolution_s) x.landed_s = next;
    }
    now = next;
  }
  std::vector<double> out;
  for (const NaiveFlow& x : f) out.push_back(x.landed_s);
  return out;
}

}  // namespace

TEST_CASE("star sharing: landing times equal a flow-by-flow reference on random traffic",
          "[star_sharing]") {
  // 12 nodes, 100 B/s links, 150 flows of 10-1000 bytes after latencies of 0-3 s: flows
  // between the same nodes share one clock, pairs go idle and come back (their places in
  // the clocks' arrays move), links tie at equal shares.
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    std::uint32_t state = seed;
    const auto next = [&state] { return (state = state * 1664525u + 1013904223u) >> 8; };
    const int nodes = 12;
    StarSharing s(std::vector<double>(nodes, 100.0), std::vector<double>(nodes, 100.0));
    std::vector<NaiveFlow> ref;
    std::vector<StarSharing::FlowId> ids;
    for (int i = 0; i < 150; ++i) {
      const int src = int(next() % nodes), dst = int(next() % nodes);
      const double bytes = 10 + double(next() % 991), latency = double(next() % 7) * 0.5;
      ids.push_back(s.add(src, dst, bytes, latency));
      ref.push_back(NaiveFlow{src, dst, bytes, latency});
    }
    const std::vector<double> want = naive_landings(nodes, 100.0, ref);
    // Every flow was added before the first landing: ids are distinct.
    std::vector<double> got(ids.size(), -1);
    while (s.in_flight() > 0) {
      const double t = s.next_event_s();
      REQUIRE(t < std::numeric_limits<double>::infinity());
      std::vector<StarSharing::FlowId> landed;
      s.advance(t, landed);
      for (const StarSharing::FlowId f : landed) got[std::size_t(std::find(ids.begin(), ids.end(), f) - ids.begin())] = t;
    }
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO("seed " << seed << " flow " << i);
      CHECK(got[i] == Approx(want[i]).epsilon(1e-9));
    }
  }
}
