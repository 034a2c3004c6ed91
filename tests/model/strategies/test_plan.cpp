// Every strategy writes a valid plan, and the closed-form node loads agree with the
// flows the plan expands to (what the SimGrid and live engines will actually send).
#include <catch2/catch.hpp>

#include <map>

#include "support/fixtures.hpp"
#include "model/plan/node_load.hpp"

using namespace possim;
using namespace possim::test;

TEST_CASE("every strategy writes a valid plan", "[plan]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const auto& s : strategy_names())
    for (int nodes : {1, 2, 5, 16})
      for (int gpus : {1, 4}) {
        PlanRequest r = request(net, prof, nodes, 10);
        r.cluster.gpus_per_node = gpus;
        INFO(s << " nodes " << nodes << " gpus " << gpus);
        const SyncPlan plan = make_plan(s, r);
        CHECK_NOTHROW(validate(plan));
        CHECK(plan.strategy == s);
        CHECK(plan.decisions.size() == 4);
      }
}

TEST_CASE("unknown strategy names are rejected", "[plan]") {
  CHECK_THROWS_AS(make_strategy("poseidonn"), std::invalid_argument);
  CHECK(strategy_names() == std::vector<std::string>{"single", "ps", "wfbp", "poseidon", "tf_stock", "adam", "onebit",
                                                     "allreduce", "hier_allreduce", "tree_allreduce"});
  for (const auto& name : strategy_names()) CHECK(is_strategy(name));
}

TEST_CASE("KV pairs are hashed evenly over shards", "[plan]") {
  const Network net = one_fc_net(4096, 4096);  // 64 MiB: 32 pairs of 2 MiB
  const Profile prof = flat_profile();
  const SyncPlan plan = make_plan("wfbp", request(net, prof, 8, 10));
  REQUIRE(plan.tensors.size() == 1);
  double total = 0;
  for (const Slice& s : plan.tensors[0].slices) {
    CHECK(s.pairs == 4);
    CHECK(s.bytes == Approx(4 * 2.0 * 1024 * 1024));
    total += s.bytes;
  }
  CHECK(total == Approx(4096.0 * 4096 * 4));
}

TEST_CASE("node_load agrees with the expanded flows", "[plan]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const auto& s : strategy_names())
    for (auto placement : {ServerPlacement::colocated, ServerPlacement::dedicated})
      for (int nodes : {2, 3, 8}) {
        PlanRequest r = request(net, prof, nodes, 10);
        r.cluster.placement = placement;
        r.cluster.server_shards = placement == ServerPlacement::dedicated ? 2 : nodes;
        const SyncPlan plan = make_plan(s, r);
        for (const Task& t : plan.tasks) {
          if (t.pattern == FlowPattern::none) continue;
          std::map<int, double> tx, rx;
          double total = 0;
          for (int w = 0; w < plan.workers; ++w)
            for (const Flow& f : expand_flows(plan, t, w)) {
              if (f.src_node == f.dst_node) continue;
              tx[f.src_node] += f.bytes;
              rx[f.dst_node] += f.bytes;
              total += f.bytes;
            }
          double tx_max = 0, rx_max = 0;
          for (auto& [n, b] : tx) tx_max = std::max(tx_max, b);
          for (auto& [n, b] : rx) rx_max = std::max(rx_max, b);
          const NodeLoad l = node_load(plan, t);
          INFO(s << " " << to_string(placement) << " nodes " << nodes << " " << t.display_label());
          CHECK(l.total_bytes == Approx(total));
          // Per task, the closed form names the busiest sender and receiver. For
          // colocated nodes, a node's tx carries both its worker's and its shard's part
          // of one task only for to_shards/from_shards, which send in one direction.
          CHECK(l.tx_bytes_max == Approx(tx_max));
          CHECK(l.rx_bytes_max == Approx(rx_max));
        }
      }
}
