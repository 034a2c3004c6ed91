// Collectives written once (model/collective.cpp) and the strategies that use them,
// against hand calculations, in both engines. hier_allreduce and tree_allreduce were
// added without touching any engine file: the seam of model/sync_plan.hpp.
#include <cmath>
#include <map>
#include <tuple>

#include <catch2/catch.hpp>

#include "support/fixtures.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/plan/collective.hpp"
#include "support/collective_walk.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;
using namespace possim::test;

namespace {

Result analytic(const std::string& strategy, const PlanRequest& r) {
  return AnalyticEngine().run(make_plan(strategy, r), RunOptions{});
}
Result simulate(const std::string& strategy, const PlanRequest& r) {
  return sim::SimGridEngine().run(make_plan(strategy, r), RunOptions{});
}

const double kBytes = 1024.0 * 2048 * 4;       // one_fc_net's gradient
const double kNic = 10e9 / 8 * 0.9;            // flat profile at 10 Gbit/s
const double kCompute = 32 * 6.0 * 1024 * 2048 / 1e12;
const double kStep = 50e-6 + 20e-6;            // latency + per-message cost per round

}  // namespace

TEST_CASE("ring schedule: 2(P-1) rounds of B/P to the next worker, from the one before",
          "[collective]") {
  for (int p : {2, 3, 8}) {
    for (int w = 0; w < p; ++w) {
      const CollectiveSchedule s = collective_schedule(CollectiveKind::ring, p, w, 800, 1);
      REQUIRE(s.size() == 1);
      REQUIRE(s[0].size() == std::size_t(2 * (p - 1)));
      for (const CollectiveRound& r : s[0]) {
        REQUIRE(r.sends.size() == 1);
        CHECK(r.sends[0].peer == (w + 1) % p);
        CHECK(r.sends[0].bytes == 800.0 / p);
        REQUIRE(r.receives.size() == 1);
        CHECK(r.receives[0].peer == (w + p - 1) % p);
      }
    }
    const CollectiveLoad l = collective_load(CollectiveKind::ring, p, 800, 1);
    CHECK(l.tx_bytes_max == Approx(2.0 * (p - 1) / p * 800));
    CHECK(l.rounds_max == 2 * (p - 1));
    CHECK(l.total_bytes == Approx(2.0 * (p - 1) * 800));
  }
}

TEST_CASE("double tree: every send has its receive, 2(P-1) B in all, a leaf of one tree is "
          "inner in the other", "[collective]") {
  for (int p : {2, 3, 4, 7, 16, 33}) {
    INFO(p << " workers");
    const double bytes = 1e6;
    const int chunks = 5;
    // Sends from a to b on each stream must equal b's receives from a on it.
    std::map<std::tuple<int, int, int>, int> sent, received;
    double total = 0;
    int leaf_in_both = 0;
    for (int w = 0; w < p; ++w) {
      const CollectiveSchedule s = collective_schedule(CollectiveKind::double_tree, p, w, bytes, chunks);
      REQUIRE(!s.empty());
      bool has_children[2] = {false, false};  // receives on a tree's up stream (0 or 2)
      for (const auto& channel : s) {
        CHECK(channel.size() <= std::size_t(chunks + 1));
        for (const CollectiveRound& r : channel) {
          for (const CollectiveSend& x : r.sends) {
            ++sent[{x.stream, w, x.peer}];
            total += x.bytes;
            CHECK(x.bytes == bytes / 2 / chunks);
          }
          for (const CollectiveReceive& x : r.receives) {
            ++received[{x.stream, x.peer, w}];
            if (x.stream % 2 == 0) has_children[x.stream / 2] = true;
          }
        }
      }
      leaf_in_both += !has_children[0] && !has_children[1];
    }
    CHECK(sent == received);
    CHECK(total == Approx(2.0 * (p - 1) * bytes));  // each tree: half up and down every edge
    if (p >= 3) CHECK(leaf_in_both == p % 2);       // mirrored heaps: one left over when P is odd
    const CollectiveLoad l = collective_load(CollectiveKind::double_tree, p, bytes, chunks);
    CHECK(l.total_bytes == Approx(total));
    CHECK(l.tx_bytes_max <= 2 * bytes + 1e-6);  // inner in one tree (1.5 B), leaf in the other
    CHECK(l.rounds_max == chunks + 1);
  }
}

TEST_CASE("tree_allreduce, analytic, by hand: 2 nodes, each the root of one tree and the leaf "
          "of the other", "[collective][analytic]") {
  // Each node sends half the tensor up one tree and half down the other: B through each
  // NIC. The pipeline of C chunks: the leaf sends chunk c in round c (c = 1..C), the root
  // turns chunk c around in round c+1, so the last chunk is back after C+1 hops, each a
  // message cost and a latency. C = 4 MiB / 512 KiB = 8.
  const Network net = one_fc_net(1024, 2048);
  const Profile prof = flat_profile();
  const int c = 8;
  const double expected = kCompute + kBytes / kNic + (c + 1) * kStep;
  const Result r = analytic("tree_allreduce", request(net, prof, 2, 10, 32, 3));
  CHECK(r.iteration_s == Approx(expected).epsilon(1e-12));
  CHECK(r.sent_bytes_max == Approx(kBytes).epsilon(1e-12));
  // 4 nodes: worker 1 is inner in tree A (half up, half to its child) and a leaf of B
  // (half up): 1.5 B through the busiest NIC.
  CHECK(analytic("tree_allreduce", request(net, prof, 4, 10, 32, 3)).sent_bytes_max ==
        Approx(1.5 * kBytes).epsilon(1e-12));
}

TEST_CASE("tree_allreduce beats the ring on a small tensor at many nodes, in both engines",
          "[collective][simgrid]") {
  // 32 nodes, a 64 KiB gradient: the ring pays 62 rounds of latency, the tree ~2 log2 P.
  const Network net = one_fc_net(128, 128);
  const Profile prof = flat_profile();
  const PlanRequest r = request(net, prof, 32, 10, 32, 3);
  const double ring_sync = 2 * 31 * kStep;
  const double ring_a = analytic("allreduce", r).iteration_s, tree_a = analytic("tree_allreduce", r).iteration_s;
  const double ring_g = simulate("allreduce", r).iteration_s, tree_g = simulate("tree_allreduce", r).iteration_s;
  INFO("ring " << ring_a << " / " << ring_g << " s, tree " << tree_a << " / " << tree_g << " s");
  CHECK(ring_a - tree_a > 0.5 * ring_sync);
  CHECK(ring_g - tree_g > 0.5 * ring_sync);
  CHECK(tree_g == Approx(tree_a).epsilon(0.15));  // SimGrid: a parent's sends to two children share its NIC
}

TEST_CASE("tree_allreduce on SimGrid stays near the analytic bound on a large tensor",
          "[collective][simgrid]") {
  const Network net = one_fc_net(1024, 2048);
  const Profile prof = flat_profile();
  for (int p : {2, 4, 8, 16}) {
    const PlanRequest r = request(net, prof, p, 10, 32, 3);
    const double a = analytic("tree_allreduce", r).iteration_s, g = simulate("tree_allreduce", r).iteration_s;
    INFO(p << " nodes: analytic " << a << " s, simgrid " << g << " s");
    CHECK(g >= kCompute + kBytes / kNic);  // at least the tensor through a NIC
    CHECK(g == Approx(a).epsilon(0.20));
  }
}

TEST_CASE("hier_allreduce: (G-1)/G of the tensor inside the node each way, the ring across, "
          "by hand in both engines", "[collective][simgrid]") {
  const Network net = one_fc_net(1024, 2048);
  const Profile prof = flat_profile();
  const double d2d = 20e9;
  for (int gpus : {1, 2, 4}) {
    for (int p : {2, 4}) {
      PlanRequest r = request(net, prof, p, 10, 32, 3);
      r.cluster.gpus_per_node = gpus;
      const double ring = 2.0 * (p - 1) / p * kBytes / kNic + 2 * (p - 1) * kStep;
      const double hier = kCompute + 2.0 * (gpus - 1) / gpus * kBytes / d2d + ring;
      const double gather = kCompute + 2.0 * (gpus - 1) * kBytes / d2d + ring;
      INFO(p << " nodes x " << gpus << " GPUs");
      CHECK(analytic("hier_allreduce", r).iteration_s == Approx(hier).epsilon(1e-12));
      CHECK(simulate("hier_allreduce", r).iteration_s == Approx(hier).epsilon(1e-6));
      CHECK(analytic("allreduce", r).iteration_s == Approx(gather).epsilon(1e-12));
    }
  }
}

TEST_CASE("collective_load in closed form equals its schedules walked round by round",
          "[collective]") {
  // The ring's load is a formula and the tree's a walk over its distinct nodes: both must
  // give what writing out every worker's schedule and walking its critical path gives, at
  // rates where latency, message costs or bytes dominate.
  struct Rates {
    double latency_s, per_message_s, bytes_per_s;
  };
  for (CollectiveKind kind : {CollectiveKind::ring, CollectiveKind::double_tree})
    for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 31, 64, 100})
      for (int chunks : {0, 1, 2, 3, 8, 64})
        for (double bytes : {1.0, 1e3 / 3, 7.3e6, 3.58e8})
          for (Rates r : {Rates{5e-5, 1e-5, 1.25e9}, Rates{1e-3, 0, 1.25e11}, Rates{0, 1e-4, 0},
                          Rates{2e-6, 5e-6, 5e10}}) {
            INFO(int(kind) << " kind, " << p << " workers, " << chunks << " chunks, " << bytes << " bytes, rates "
                           << r.latency_s << " " << r.per_message_s << " " << r.bytes_per_s);
            const CollectiveLoad w =
                test::collective_load_walked(kind, p, bytes, chunks, r.latency_s, r.per_message_s, r.bytes_per_s);
            for (int call = 0; call < 2; ++call) {  // the second from the kept shape
              const CollectiveLoad l = collective_load(kind, p, bytes, chunks, r.latency_s, r.per_message_s, r.bytes_per_s);
              CHECK(l.tx_bytes_max == Approx(w.tx_bytes_max).epsilon(1e-13));
              CHECK(l.rx_bytes_max == Approx(w.rx_bytes_max).epsilon(1e-13));
              CHECK(l.total_bytes == Approx(w.total_bytes).epsilon(1e-13));
              CHECK(l.messages_max == w.messages_max);
              CHECK(l.rounds_max == w.rounds_max);
              // The path: its time exactly, and its parts where one path is the longest
              // (with no message cost, paths of equal hops tie).
              const auto time = [&](const CollectiveLoad& c) {
                return c.path_latencies * r.latency_s + c.path_messages * r.per_message_s +
                       (r.bytes_per_s > 0 ? c.path_bytes / r.bytes_per_s : 0);
              };
              CHECK(time(l) == Approx(time(w)).epsilon(1e-13));
              if (r.per_message_s > 0 && r.latency_s > 0) {
                CHECK(l.path_latencies == w.path_latencies);
                CHECK(l.path_messages == w.path_messages);
                CHECK(l.path_bytes == Approx(w.path_bytes).epsilon(1e-13));
              }
            }
          }
  // Rates change the path, not the shape: the same collective at other rates, then again.
  const CollectiveLoad a = collective_load(CollectiveKind::double_tree, 33, 4e6, 8, 5e-5, 1e-5, 1.25e9);
  const CollectiveLoad b = collective_load(CollectiveKind::double_tree, 33, 4e6, 8, 1e-3, 0, 1.25e11);
  const CollectiveLoad c = collective_load(CollectiveKind::double_tree, 33, 4e6, 8, 5e-5, 1e-5, 1.25e9);
  CHECK(a.path_latencies == c.path_latencies);
  CHECK(a.path_messages == c.path_messages);
  CHECK(a.path_bytes == c.path_bytes);
  CHECK(b.path_latencies >= a.path_latencies);  // latency-bound: the longest chain of hops
}
