// The network's transport (model/plan/transport.hpp): TCP's payload is the wire's framing
// share of the line rate up to the host's ceiling; RDMA's is its own share, with no host
// ceiling and no staging copy through host memory. By hand on both engines.
#include <catch2/catch.hpp>

#include "live/live_engine.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/profile_derive.hpp"
#include "model/input/scenario.hpp"
#include "model/plan/network_scale.hpp"
#include "model/plan/time_dilation.hpp"
#include "model/plan/transport.hpp"
#include "model/run/plan_json.hpp"
#include "sim/simgrid_engine.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;
using Approx = Catch::Detail::Approx;

namespace {

const double kFraming = 1448.0 / 1538;  // 1500-byte MTU with TCP timestamps
const double kCeiling = 1e9;            // the host's TCP ceiling in these tests, B/s

Profile tcp_profile() {
  Profile p = flat_profile();
  p.tcp_goodput = kFraming;
  p.tcp_host_bytes_per_s = kCeiling;
  return p;
}

int count(const SyncPlan& p, Step s) {
  int n = 0;
  for (const Task& t : p.tasks) n += t.step == s;
  return n;
}

}  // namespace

TEST_CASE("TCP carries the line rate's framing share up to the host's ceiling, RDMA its own share",
          "[transport]") {
  const TransportRates tcp{kFraming, kCeiling, Transport::tcp};
  CHECK(payload_bytes_per_s(5e9 / 8, tcp) == 5e9 / 8 * kFraming);  // a tc-throttled 5 GbE: below the host
  CHECK(payload_bytes_per_s(40e9 / 8, tcp) == kCeiling);             // 40 GbE: the host binds
  CHECK(payload_bytes_per_s(40e9 / 8, {kFraming, 0, Transport::tcp}) == 40e9 / 8 * kFraming);  // no ceiling
  Profile p = tcp_profile();
  Cluster c;
  const TransportRates from_profile = transport_rates(p, c);
  CHECK(from_profile.wire_efficiency == kFraming);
  CHECK(from_profile.host_bytes_per_s == kCeiling);
  CHECK_FALSE(from_profile.gpudirect());
  c.transport = Transport::rdma;
  CHECK(input_error([&] { transport_rates(p, c); }).find("rdma_efficiency") != std::string::npos);
  p.rdma_efficiency = 0.99;
  const TransportRates rdma = transport_rates(p, c);
  CHECK(rdma.wire_efficiency == 0.99);
  CHECK(rdma.host_bytes_per_s == 0);  // no kernel stack on the data path
  CHECK(rdma.gpudirect());
  CHECK(payload_bytes_per_s(400e9 / 8, rdma) == 400e9 / 8 * 0.99);
  CHECK(describe(from_profile) == "tcp: payload = min(line rate x 0.9415, the host's 8 Gbit/s) per direction");
  CHECK(describe(rdma) == "rdma: payload = line rate x 0.99 per direction, GPUDirect (no host copy)");
}

TEST_CASE("the host's TCP ceiling sets a ring all-reduce's time where it binds, by hand, on both engines",
          "[transport][engines]") {
  const Network net = one_fc_net();  // B = 8 MiB of gradient
  const Profile prof = tcp_profile();
  const double bytes = 1024.0 * 2048 * 4;
  const int batch = 256;
  const double compute = batch * 6.0 * 1024 * 2048 / 1e12;
  const double rounds = 2 * (50e-6 + 20e-6);  // 2(P - 1) rounds of latency + per-message cost
  // 40 GbE: the host's 1 GB/s binds; 4 GbE (throttled): the wire's framing does.
  for (const auto& [gbps, nic] : {std::pair{40.0, kCeiling}, std::pair{4.0, 4e9 / 8 * kFraming}}) {
    INFO(gbps << " Gbit/s");
    const SyncPlan plan = make_plan("allreduce", request(net, prof, 2, gbps, batch, 3));
    CHECK(plan.nic_bytes_per_s() == nic);
    const double expected = compute + bytes / nic + rounds;  // P = 2: B/2 out in each of 2 rounds
    CHECK(AnalyticEngine().run(plan, {}).iteration_s == Approx(expected).epsilon(1e-9));
    CHECK(sim::SimGridEngine().run(plan, {}).iteration_s == Approx(expected).epsilon(1e-3));
    // Scaled networks and dilated time keep the ceiling in step with the line rate.
    CHECK(scale_network(plan, 4).nic_bytes_per_s() == Approx(nic / 4).epsilon(1e-15));
    CHECK(dilate_time(plan, 3).nic_bytes_per_s() == Approx(nic / 3).epsilon(1e-15));
  }
}

TEST_CASE("RDMA with GPUDirect stages nothing through host memory, unless the stack passes over the bytes",
          "[transport][plan]") {
  const Network net = small_cnn();
  Profile prof = tcp_profile();
  prof.rdma_efficiency = 0.99;
  for (const std::string s : {"wfbp", "poseidon", "ps", "adam"}) {
    INFO(s);
    PlanRequest r = request(net, prof, 4, 100);
    const SyncPlan tcp = make_plan(s, r);
    CHECK(count(tcp, Step::copy_d2h) > 0);
    CHECK(count(tcp, Step::copy_h2d) > 0);
    CHECK(tcp.rates.pcie_bytes_per_s == prof.pcie_bytes_per_s);
    r.cluster.transport = Transport::rdma;
    const SyncPlan rdma = make_plan(s, r);
    CHECK(count(rdma, Step::copy_d2h) == 0);
    CHECK(count(rdma, Step::copy_h2d) == 0);
    CHECK(rdma.nic_bytes_per_s() == 100e9 / 8 * 0.99);
    CHECK(rdma.tasks.size() == tcp.tasks.size() - std::size_t(count(tcp, Step::copy_d2h) + count(tcp, Step::copy_h2d)));
    // Both engines run it, and no copy time is left in either's breakdown.
    const Result a = AnalyticEngine().run(rdma, {});
    const Result g = sim::SimGridEngine().run(rdma, {});
    CHECK(a.iteration_s > 0);
    CHECK(g.iteration_s == Approx(a.iteration_s).epsilon(0.1));
    CHECK(a.iteration_s < AnalyticEngine().run(tcp, {}).iteration_s);
  }
  // A PS client that passes over each shard's bytes on the host keeps its copies, at the
  // host work's rate alone (the PCIe copy is gone).
  prof.client_pass_bytes_per_s = 8e9;
  PlanRequest r = request(net, prof, 4, 100);
  r.cluster.transport = Transport::rdma;
  const SyncPlan passes = make_plan("ps", r);
  CHECK(count(passes, Step::copy_d2h) > 0);
  CHECK(passes.rates.pcie_bytes_per_s == Approx(8e9 / 4).epsilon(1e-15));
  CHECK(passes.rates.copy_host_share == 1);
}

TEST_CASE("a scenario's cluster.transport, a plan file's transport and host ceiling, the live backend's refusal",
          "[transport][scenario]") {
  const std::string head = R"({"model": "googlenet", "batch_per_gpu": 32, "profile": "titanx_maxwell",
    "cluster": {"nodes": 2, "nic_gbps": 100)";
  CHECK(parse_scenario(head + "}, \"strategies\": [\"wfbp\"]}", "t.json", ".")
            .transport == Transport::tcp);
  CHECK(input_error([&] {
          parse_scenario(head + R"(, "transport": "udp"}, "strategies": ["wfbp"]})", "t.json",
                         ".");
        }).find("cluster.transport") != std::string::npos);
  // titanx_maxwell ran TCP: no RDMA figure, so an RDMA plan is refused naming it.
  const Scenario s = parse_scenario(head + R"(, "transport": "rdma"}, "strategies": ["wfbp"]})", "t.json",
                                    ".");
  CHECK(s.transport == Transport::rdma);
  CHECK(s.cluster(2, 100).transport == Transport::rdma);
  CHECK(input_error([&] { transport_rates(s.profile, s.cluster(2, 100)); }).find("rdma_efficiency") !=
        std::string::npos);

  const Network net = one_fc_net();
  Profile prof = tcp_profile();
  prof.rdma_efficiency = 0.99;
  PlanRequest r = request(net, prof, 2, 40);
  const SyncPlan tcp = make_plan("wfbp", r);
  const SyncPlan back = plan_from_json(plan_to_json(tcp), "round trip");
  CHECK(back.rates.host_bytes_per_s == kCeiling);
  CHECK(back.nic_bytes_per_s() == tcp.nic_bytes_per_s());
  // A plan file from before the transport model names the share tcp_goodput.
  nlohmann::json legacy = plan_to_json(tcp);
  legacy["rates"].erase("wire_efficiency");
  legacy["rates"].erase("host_bytes_per_s");
  legacy["rates"]["tcp_goodput"] = 0.5;
  legacy["cluster"].erase("transport");
  const SyncPlan old = plan_from_json(legacy, "legacy");
  CHECK(old.nic_bytes_per_s() == 40e9 / 8 * 0.5);
  CHECK(old.cluster.transport == Transport::tcp);

  r.cluster.transport = Transport::rdma;
  const SyncPlan rdma = make_plan("wfbp", r);
  CHECK(plan_from_json(plan_to_json(rdma), "round trip").cluster.transport == Transport::rdma);
  live::LiveOptions o;
  o.launch.netns = false;
  CHECK(input_error([&] { live::LiveEngine(o).run(rdma, {}); }).find("over TCP sockets") != std::string::npos);
}

TEST_CASE("profile derive gives a TCP-only base InfiniBand's framing share for RDMA", "[transport][derive]") {
  const Profile base = load_profile("titanx_maxwell");
  CHECK(base.rdma_efficiency == 0);
  const Profile v100 = derive_profile(base, load_device_sheet("titanx_maxwell"), load_device_sheet("v100"), "v100");
  CHECK(v100.rdma_efficiency == 4096.0 / (4096 + 26));
  CHECK(v100.sources.at("rdma_efficiency").find("ICRC") != std::string::npos);
  CHECK(v100.tcp_host_bytes_per_s == base.tcp_host_bytes_per_s);  // the host's, carried over
  CHECK(v100.tcp_goodput == base.tcp_goodput);
}
