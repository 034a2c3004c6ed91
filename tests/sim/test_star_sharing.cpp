// possim's max-min solver for the star (sim/network/star_sharing.hpp) against allocations
// and landing times worked out by hand from progressive filling.
#include <cmath>
#include <limits>

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
}
