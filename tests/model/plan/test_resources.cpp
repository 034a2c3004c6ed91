// The resource table (model/plan/resource.hpp): one row per resource, read by the plan's
// checks, the uncontended task cost, network scaling and time dilation, and the engines'
// trace tracks; the NIC's line rate has one home (the cluster), the rate engines use
// derives from it.
#include <catch2/catch.hpp>

#include <set>

#include "support/fixtures.hpp"
#include "model/plan/network_scale.hpp"
#include "model/plan/task_cost.hpp"
#include "model/plan/time_dilation.hpp"
#include "model/run/breakdown.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/plan_json.hpp"
#include "model/strategies/strategy.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;

namespace {

SyncPlan plan_of(const std::string& strategy, int nodes, int gpus = 1) {
  static const Network net = test::small_cnn();
  static const Profile prof = test::flat_profile();
  PlanRequest r = test::request(net, prof, nodes, 10, 32, 3);
  r.cluster.gpus_per_node = gpus;
  return make_plan(strategy, r);
}

}  // namespace

TEST_CASE("resource table: one row per resource, in enum order, each named once", "[resources]") {
  std::set<std::string> names;
  for (std::size_t i = 0; i < resources().size(); ++i) {
    const ResourceInfo& r = resources()[i];
    CHECK(std::size_t(r.id) == i);
    CHECK(&info(r.id) == &r);
    CHECK(to_string(r.id) == std::string(r.name));
    CHECK(names.insert(r.name).second);
    // A resource whose amount is bytes or updates has a rate to turn it into time.
    if (r.amount == Amount::bytes || r.amount == Amount::updates) CHECK(r.rate != nullptr);
    if (r.amount == Amount::seconds) CHECK(r.rate == nullptr);
  }
  CHECK(names.size() == kResources);
}

TEST_CASE("resource table: every task of every strategy runs on its step's resource, in the table's scope",
          "[resources]") {
  for (const std::string& s : strategy_names()) {
    INFO(s);
    const SyncPlan plan = plan_of(s, 4, 2);
    for (const Task& t : plan.tasks) {
      CHECK(t.resource == resource_of(t.step));
      CHECK(t.scope == info(t.resource).scope);
      CHECK(info(t.resource).carries == (t.carries != Payload::none));
    }
  }
  // validate() holds a task to the table: a GPU task made a cluster-wide one is refused.
  SyncPlan bad = plan_of("ps", 2);
  for (Task& t : bad.tasks)
    if (t.resource == Resource::gpu) {
      t.scope = Scope::cluster;
      break;
    }
  CHECK_THROWS_WITH(validate(bad), Catch::Matchers::Contains("tasks on gpu have another scope"));
}

TEST_CASE("resource table: an uncontended task's seconds by hand from its row", "[resources]") {
  Rates r;
  r.pcie_bytes_per_s = 8e9;
  r.pcie_latency_s = 5e-6;
  r.d2d_bytes_per_s = 40e9;
  Task t;
  t.duration_s = 0.25;
  t.bytes = 4e6;
  t.resource = Resource::gpu;
  CHECK(resource_seconds(r, t) == 0.25);
  t.resource = Resource::pcie_d2h;
  CHECK(resource_seconds(r, t) == 5e-6 + 4e6 / 8e9);
  t.resource = Resource::pcie_h2d;
  CHECK(resource_seconds(r, t) == 5e-6 + 4e6 / 8e9);
  t.resource = Resource::intra_node;  // no latency in its row
  CHECK(resource_seconds(r, t) == 4e6 / 40e9);
  t.resource = Resource::none;  // a barrier's round
  CHECK(resource_seconds(r, t) == 0.25);
  t.bytes = 0;
  t.resource = Resource::pcie_d2h;  // no bytes, no latency paid
  CHECK(resource_seconds(r, t) == 0);
}

TEST_CASE("the NIC's line rate lives in the cluster, and scaling and dilation act on each rate once", "[resources]") {
  const SyncPlan plan = plan_of("poseidon", 4, 2);
  REQUIRE(plan.rates.wire_efficiency > 0);
  CHECK(plan.nic_bytes_per_s() == plan.cluster.nic_bytes_per_s() * plan.rates.wire_efficiency);
  CHECK(plan.line_rate_gbps() == plan.cluster.nic_gbps);

  const double k = 8;
  const SyncPlan scaled = scale_network(plan, k);
  CHECK(scaled.cluster.nic_gbps == plan.cluster.nic_gbps);  // the scenario's, as reported
  CHECK(scaled.line_rate_gbps() == plan.cluster.nic_gbps / k);
  CHECK(scaled.nic_bytes_per_s() == Approx(plan.nic_bytes_per_s() / k).epsilon(1e-15));
  CHECK(scaled.rates.pcie_bytes_per_s == plan.rates.pcie_bytes_per_s);  // only the network's row scales

  const SyncPlan slow = dilate_time(plan, k);
  CHECK(slow.nic_bytes_per_s() == Approx(plan.nic_bytes_per_s() / k).epsilon(1e-15));
  // Both PCIe directions share one rate and one latency: each divided (multiplied) once.
  CHECK(slow.rates.pcie_bytes_per_s == plan.rates.pcie_bytes_per_s / k);
  CHECK(slow.rates.pcie_latency_s == plan.rates.pcie_latency_s * k);
  CHECK(slow.rates.d2d_bytes_per_s == plan.rates.d2d_bytes_per_s / k);
  CHECK(slow.rates.server_apply_bytes_per_s == plan.rates.server_apply_bytes_per_s / k);
  CHECK(slow.rates.latency_s == plan.rates.latency_s * k);
  CHECK(slow.rates.per_message_s == plan.rates.per_message_s);  // real CPU work, not emulated
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) CHECK(slow.tasks[i].duration_s == plan.tasks[i].duration_s * k);
}

TEST_CASE("the SimGrid engine's tracks are the table's: a worker's resource, a shard's CPU", "[resources]") {
  std::set<std::string> tracks;
  for (const ResourceInfo& r : resources()) tracks.insert(r.track);
  RunOptions opt;
  opt.timeline = true;
  const Result res = sim::SimGridEngine().run(plan_of("ps", 2, 2), opt);
  std::set<std::string> seen;
  for (const TimelineEvent& e : res.timeline) {
    if (e.track.find(" NIC ") != std::string::npos) continue;  // the network's, by direction
    std::string track = e.track;
    for (const char* owner : {"worker ", "shard "})
      if (track.rfind(owner, 0) == 0) track = track.substr(track.find(' ', std::string(owner).size()) + 1);
    if (track.rfind("GPU ", 0) == 0 && track.find_first_not_of("0123456789", 4) == std::string::npos) track = "GPU";
    INFO(e.track);
    CHECK(tracks.count(track) == 1);
    seen.insert(track);
  }
  for (const char* used : {"GPU", "PCIe d2h", "PCIe h2d", "GPU-GPU", "CPU"}) CHECK(seen.count(used) == 1);
}

TEST_CASE("resource table: every step runs on a resource, its default the first row that holds it", "[resources]") {
  for (std::size_t i = 0; i < kSteps; ++i) {
    const Step s = Step(i);
    INFO(to_string(s));
    const Resource r = resource_of(s);
    CHECK(runs_on(r, s));
    for (const ResourceInfo& row : resources()) {
      if (row.id == r) break;
      CHECK_FALSE(runs_on(row.id, s));  // an earlier row would be its default
    }
  }
  // A plan whose task names a resource its step does not run on is refused.
  SyncPlan bad = plan_of("ps", 2);
  for (Task& t : bad.tasks)
    if (t.step == Step::copy_d2h) {
      t.resource = Resource::pcie_h2d;
      break;
    }
  CHECK_THROWS_WITH(validate(bad), Catch::Matchers::Contains("step copy_d2h does not run on pcie_h2d"));
}

TEST_CASE("resource table: a wait for a task counts as its resource's share, which off the GPU is its step's",
          "[resources][breakdown]") {
  // The breakdown charges the representative GPU's idle time to the resource it waits for
  // (ResourceInfo::waited) and a kernel's own time to its step (share_of): the two tables
  // agree on every step that does not run on a GPU.
  for (std::size_t i = 0; i < kSteps; ++i) {
    Task t;
    t.step = Step(i);
    t.resource = resource_of(t.step);
    INFO(to_string(t.step));
    if (info(t.resource).amount == Amount::seconds && info(t.resource).scope == Scope::worker) continue;  // a kernel
    CHECK(share_of(t) == info(t.resource).waited);
  }
  CHECK(info(Resource::gpu).waited == TimeShare::barrier_wait);  // a peer's kernel
  CHECK(info(Resource::pcie_d2h).host_work);
  CHECK_FALSE(info(Resource::intra_node).host_work);
}

TEST_CASE("a worker's host CPU is its node's: its update contends with the colocated shard's apply on every "
          "predicting engine", "[resources][host_cpu]") {
  // One node, one GPU, its shard colocated. After backward (20 ms) the shard applies its
  // 8 MB slice (8 ms at 1e9 B/s) while a CPU-side optimizer applies another 8 MB on the same
  // CPU: 16 MB of work on one CPU, 16 ms, not 8.
  const nlohmann::json j = nlohmann::json::parse(R"({
   "format": "possim.plan.v1", "strategy": "ps", "model": "one_fc",
   "cluster": {"nodes": 1, "gpus_per_node": 1, "nic_gbps": 8, "latency_s": 0, "server_shards": 1, "placement": "colocated"},
   "batch_per_gpu": 32, "iterations": 3,
   "rates": {"tcp_goodput": 1, "latency_s": 0, "per_message_s": 0, "pcie_bytes_per_s": 8e9, "pcie_latency_s": 0,
             "d2d_bytes_per_s": 1e10, "server_apply_bytes_per_s": 1e9},
   "layers": [{"name": "fc", "kind": "fc", "params": 2e6}],
   "tensors": [{"layer": 0, "bytes": 8e6, "slices": [{"shard": 0, "bytes": 8e6, "pairs": 1}]}],
   "tasks": [
    {"step": "forward", "layer": 0, "duration_s": 0.010, "deps": [[4, 1]]},
    {"step": "backward", "layer": 0, "duration_s": 0.020, "deps": [[0, 0]]},
    {"step": "apply", "layer": 0, "tensor": 0, "deps": [[1, 0]]},
    {"step": "apply", "resource": "host_cpu", "layer": 0, "bytes": 8e6, "deps": [[1, 0]]},
    {"step": "barrier", "deps": [[2, 0], [3, 0]]}
   ]})");
  const SyncPlan p = plan_from_json(j, "host_cpu plan");
  const double cpu_s = (p.tensors[0].slices[0].bytes + p.tasks[3].bytes) / p.rates.server_apply_bytes_per_s;
  const double by_hand = p.tasks[0].duration_s + p.tasks[1].duration_s + cpu_s;
  REQUIRE(by_hand == Approx(0.046));
  for (const std::string& engine : predicting_engines()) {
    INFO(engine);
    CHECK(make_engine(engine, EngineRequest{})->run(p, {}).iteration_s == Approx(by_hand).epsilon(1e-9));
  }
  // Its seconds alone are its bytes at the apply rate, and it is a worker's task.
  CHECK(resource_seconds(p.rates, p.tasks[3]) == p.tasks[3].bytes / p.rates.server_apply_bytes_per_s);
  CHECK(p.tasks[3].scope == Scope::worker);
}
