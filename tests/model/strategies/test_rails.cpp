// Several NICs per node, rail-aligned (cluster.nics_per_node): GPU g sends on NIC g mod n.
// hier_allreduce's GPUs each all-reduce their slice on their own rail, so a node's bytes
// spread over min(NICs, GPUs) of them; a leader GPU's traffic (allreduce, every PS strategy)
// uses one. Held against the same plan on one NIC of the rails' summed rate, on both engines.
#include <catch2/catch.hpp>

#include "model/analytic/analytic_engine.hpp"
#include "model/input/scenario.hpp"
#include "model/run/plan_json.hpp"
#include "sim/simgrid_engine.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;

namespace {

PlanRequest node_of(const Network& net, const Profile& prof, int gpus, int nics, double gbps) {
  PlanRequest r = request(net, prof, 4, gbps, 64, 3);
  r.cluster.gpus_per_node = gpus;
  r.cluster.nics_per_node = nics;
  return r;
}

}  // namespace

TEST_CASE("hier_allreduce spreads a node's bytes over min(NICs, GPUs) rails, a leader's traffic uses one",
          "[rails][engines]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const auto& [nics, rails] : {std::pair{8, 8}, std::pair{4, 4}, std::pair{16, 8}, std::pair{1, 1}}) {
    INFO(nics << " NICs per node of 8 GPUs");
    const SyncPlan many = make_plan("hier_allreduce", node_of(net, prof, 8, nics, 25));
    CHECK(many.rails == rails);
    CHECK(many.line_rate_gbps() == 25.0 * rails);
    CHECK(many.nic_bytes_per_s() == 25e9 / 8 * rails * prof.tcp_goodput);
    // The same node with one NIC of the rails' summed rate: the same time, on both engines.
    const SyncPlan one = make_plan("hier_allreduce", node_of(net, prof, 8, 1, 25.0 * rails));
    CHECK(one.rails == 1);
    CHECK(AnalyticEngine().run(many, {}).iteration_s == AnalyticEngine().run(one, {}).iteration_s);
    CHECK(sim::SimGridEngine().run(many, {}).iteration_s == sim::SimGridEngine().run(one, {}).iteration_s);
  }
  for (const std::string s : {"allreduce", "tree_allreduce", "wfbp", "poseidon"}) {
    INFO(s << ": every byte leaves from the leader GPU, on NIC 0");
    const SyncPlan many = make_plan(s, node_of(net, prof, 8, 8, 25));
    const SyncPlan one = make_plan(s, node_of(net, prof, 8, 1, 25));
    CHECK(many.rails == 1);
    CHECK(AnalyticEngine().run(many, {}).iteration_s == AnalyticEngine().run(one, {}).iteration_s);
  }
  // The host's TCP ceiling is the node's, whatever its NICs.
  Profile capped = prof;
  capped.tcp_host_bytes_per_s = 2e9;
  CHECK(make_plan("hier_allreduce", node_of(net, capped, 8, 8, 25)).nic_bytes_per_s() == 2e9);
  CHECK(make_plan("hier_allreduce", node_of(net, capped, 8, 1, 10)).nic_bytes_per_s() == 10e9 / 8 * prof.tcp_goodput);
}

TEST_CASE("cluster.nics_per_node in a scenario and a plan file", "[rails][scenario]") {
  const std::string head = R"({"model": "googlenet", "batch_per_gpu": 32, "profile": "titanx_maxwell",
    "strategies": ["hier_allreduce"], "cluster": {"nodes": 2, "nic_gbps": 400, "gpus_per_node": 8)";
  const Scenario s = parse_scenario(head + R"(, "nics_per_node": 8}})", "t.json", ".");
  CHECK(s.nics_per_node == 8);
  CHECK(s.cluster(2, 400).nics_per_node == 8);
  CHECK(parse_scenario(head + "}}", "t.json", ".").nics_per_node == 1);
  CHECK(input_error([&] { parse_scenario(head + R"(, "nics_per_node": 0}})", "t.json", "."); })
            .find("cluster.nics_per_node") != std::string::npos);

  const Network net = small_cnn();
  const Profile prof = flat_profile();
  const SyncPlan plan = make_plan("hier_allreduce", node_of(net, prof, 8, 8, 400));
  nlohmann::json j = plan_to_json(plan);
  const SyncPlan back = plan_from_json(j, "round trip");
  CHECK(back.rails == 8);
  CHECK(back.cluster.nics_per_node == 8);
  CHECK(back.nic_bytes_per_s() == plan.nic_bytes_per_s());
  j["rails"] = 9;  // more rails than NICs
  CHECK(input_error([&] { plan_from_json(j, "edited.plan.json"); }).find("rails") != std::string::npos);
}
