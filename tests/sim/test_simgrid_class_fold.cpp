// SimGrid engine folded by classes of nodes (sim/fold.hpp): colocated shards whose slices
// differ, one simulated worker per class, must give every figure of the full simulation
// (times, bytes per node and link, flows, GPU busy, per-layer rows), for every strategy
// the fold accepts; the classes must be the ones worked out by hand; and the star solver
// must weigh a flow by the flows it stands for.
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "model/run/result_io.hpp"
#include "sim/fold.hpp"
#include "sim/network/star_sharing.hpp"
#include "sim/simgrid_engine.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;
using Reduce = sim::SimGridOptions::Reduce;
using Kind = sim::FoldChoice::Kind;
using Approx = Catch::Detail::Approx;

namespace {

Result simulate(const SyncPlan& plan, Reduce reduce, sim::SimGridOptions o = {}) {
  o.reduce = reduce;
  return sim::SimGridEngine(o).run(plan, RunOptions{});
}

// Every number of `folded` equals `full`'s to 1e-9 relative (the engines' sums run in
// other orders); `where` names the first that does not.
void same_numbers(const nlohmann::json& folded, const nlohmann::json& full, const std::string& where,
                  double scale_s, int& differences) {
  if (full.is_object()) {
    for (auto it = full.begin(); it != full.end(); ++it) {
      // The fold says what it simulated; the timeline holds the representatives only; the
      // spread of equal iteration times is rounding of rounding.
      if (it.key() == "reduced_to_nodes" || it.key() == "timeline" || it.key() == "iteration_s_stdev") continue;
      if (!folded.contains(it.key())) {
        ++differences;
        FAIL_CHECK(where + "/" + it.key() + " missing");
        continue;
      }
      same_numbers(folded.at(it.key()), it.value(), where + "/" + it.key(), scale_s, differences);
    }
  } else if (full.is_array()) {
    if (folded.size() != full.size()) {
      ++differences;
      FAIL_CHECK(where + ": " + std::to_string(folded.size()) + " entries folded, " + std::to_string(full.size()));
      return;
    }
    for (std::size_t i = 0; i < full.size(); ++i)
      same_numbers(folded[i], full[i], where + "[" + std::to_string(i) + "]", scale_s, differences);
  } else if (full.is_number()) {
    const double a = folded.get<double>(), b = full.get<double>();
    if (!(std::abs(a - b) <= 1e-9 * std::max(std::abs(b), 1e-9 * scale_s))) {
      ++differences;
      FAIL_CHECK(where + ": " + std::to_string(a) + " folded, " + std::to_string(b) + " full");
    }
  } else if (folded != full) {
    ++differences;
    FAIL_CHECK(where + ": " + folded.dump() + " folded, " + full.dump() + " full");
  }
}

// small_cnn with 1 MiB pairs: the few-pair tensors cut the nodes into classes, fc1's many
// pairs spread over every shard.
PlanRequest uneven(const Network& net, const Profile& prof, int nodes, double gbps) {
  PlanRequest r = request(net, prof, nodes, gbps, 32, 3);
  r.options.kv_pair_bytes = 1 << 20;
  return r;
}

int agree(const SyncPlan& plan, const sim::SimGridOptions& o, const std::string& what) {
  const sim::FoldChoice c = sim::choose_fold(plan, o.network);
  INFO(what << ": " << (c.kind == Kind::by_classes ? std::to_string(c.classes.count()) + " classes" : c.why_not));
  REQUIRE(c.kind == Kind::by_classes);
  const Result full = simulate(plan, Reduce::off, o), folded = simulate(plan, Reduce::on, o);
  CHECK(full.reduced_to_nodes == 0);
  CHECK(folded.reduced_to_nodes == c.classes.count());
  CHECK(folded.iteration_s == Approx(full.iteration_s).epsilon(1e-9));
  int differences = 0;
  same_numbers(result_to_json(folded, true), result_to_json(full, true), what, full.iteration_s, differences);
  CHECK(differences == 0);
  return c.classes.count();
}

}  // namespace

TEST_CASE("node classes: nodes whose shards hold the same slices, by hand", "[simgrid][fold]") {
  // Six colocated nodes, a shard each. Tensor 0: bytes 2 2 1 1 1 1; tensor 1: 1 1 1 1 3 1 (one
  // pair each). Nodes 0,1 hold (2, 1), nodes 2,3,5 (1, 1), node 4 (1, 3): three classes,
  // numbered by their least node.
  SyncPlan plan;
  plan.workers = 6;
  plan.cluster.nodes = 6;
  plan.cluster.server_shards = 6;
  plan.cluster.placement = ServerPlacement::colocated;
  for (const std::vector<double>& bytes : {std::vector<double>{2, 2, 1, 1, 1, 1}, {1, 1, 1, 1, 3, 1}}) {
    Tensor t;
    for (int s = 0; s < 6; ++s) t.slices.push_back(Slice{s, bytes[std::size_t(s)], 1});
    plan.tensors.push_back(t);
  }
  const sim::NodeClasses c = sim::node_classes(plan);
  CHECK(c.class_of == std::vector<int>{0, 0, 1, 1, 2, 1});
  CHECK(c.rep == std::vector<int>{0, 2, 4});
  CHECK(c.size == std::vector<int>{2, 3, 1});
  CHECK(c.worker_classes == 3);
  // The same bytes in more KV pairs is another slice.
  plan.tensors[1].slices[5].pairs = 2;
  CHECK(sim::node_classes(plan).count() == 4);
  // Two shards a node (shard s on node s mod 3): node n holds shards n and n + 3.
  plan.cluster.nodes = 3;
  plan.tensors[1].slices[5].pairs = 1;
  // Node 0: (2,1) and (1,1); node 1: (2,1), (1,3); node 2: (1,1), (1,1): all differ.
  CHECK(sim::node_classes(plan).count() == 3);
}

TEST_CASE("star sharing: a flow standing for several takes their share of each link", "[star_sharing]") {
  // tx of node 0: 8 B/s. Flow 0->1 stands for 3 flows on tx 0 (and 1 on rx 1), flow 0->2 for
  // one: 4 flows share tx 0, 2 B/s each; tx 0 carries 8.
  sim::StarSharing s({8, 100, 100}, {100, 100, 100});
  const auto a = s.add(0, 1, 1e6, 0, {3, 1}), b = s.add(0, 2, 1e6, 0);
  CHECK(s.rate_bytes_per_s(a) == Approx(2));
  CHECK(s.rate_bytes_per_s(b) == Approx(2));
  CHECK(s.load_bytes_per_s(0) == Approx(8));
  CHECK(s.load_bytes_per_s(3) == Approx(2));  // rx 1: one flow's worth
  // rx of node 2 (6 B/s) shared by a flow standing for 2 there and a plain one: 3 flows, 2 B/s
  // each.
  sim::StarSharing t({100, 100, 100}, {100, 100, 6});
  const auto c = t.add(1, 2, 1e6, 0, {1, 2}), d = t.add(0, 2, 1e6, 0);
  CHECK(t.rate_bytes_per_s(c) == Approx(2));  // rx 2: 6 / (2 + 1)
  CHECK(t.rate_bytes_per_s(d) == Approx(2));
  CHECK(t.load_bytes_per_s(5) == Approx(6));
  // A flow's landing: 12 bytes at 2 B/s lands at 6 s, whatever it stands for.
  sim::StarSharing u({4, 4}, {4, 4});
  u.add(0, 1, 12, 0, {2, 2});
  CHECK(u.next_event_s() == Approx(6));
  // Flows between two nodes stand for as many each.
  CHECK_THROWS_AS(u.add(0, 1, 12, 0, {1, 1}), std::logic_error);
  CHECK_THROWS_AS(u.add(1, 0, 12, 0, {0, 1}), std::logic_error);
}

TEST_CASE("folded by classes, colocated shards holding unequal slices give every figure of the full "
          "simulation", "[simgrid][fold]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  int folded = 0;
  for (const double gbps : {1.0, 40.0})
    for (const int nodes : {12, 16, 24})
      for (const auto& s : strategy_names()) {
        const SyncPlan plan = make_plan(s, uneven(net, prof, nodes, gbps));
        const sim::FoldChoice c = sim::choose_fold(plan, sim::NetworkBackend::star);
        const bool must = s == "ps" || s == "wfbp" || s == "poseidon";
        INFO(s << " at " << nodes << " nodes, " << gbps << " Gbit/s: " << c.why_not);
        if (must) CHECK(c.kind == Kind::by_classes);
        if (c.kind != Kind::by_classes) continue;
        CHECK(c.classes.count() < nodes);
        agree(plan, {}, s + " " + std::to_string(nodes) + " nodes " + std::to_string(gbps) + " Gbit/s");
        ++folded;
      }
  CHECK(folded >= 2 * 3 * 3);
}

TEST_CASE("folded by classes: one flow per KV pair, several GPUs a node, two shards a node", "[simgrid][fold]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  sim::SimGridOptions per_pair;
  per_pair.flow_per_kv_pair = true;
  agree(make_plan("ps", uneven(net, prof, 16, 10)), per_pair, "ps, a flow per KV pair");
  PlanRequest r = uneven(net, prof, 16, 10);
  r.cluster.gpus_per_node = 2;
  agree(make_plan("wfbp", r), {}, "wfbp, 2 GPUs a node");
  r = uneven(net, prof, 12, 10);
  r.cluster.server_shards = 24;
  agree(make_plan("poseidon", r), {}, "poseidon, 24 shards on 12 nodes");
  r.cluster.server_shards = 18;  // 1 or 2 shards a node: the classes tell them apart
  agree(make_plan("ps", r), {}, "ps, 18 shards on 12 nodes");
}

TEST_CASE("folded by classes: a slow node and a dropped one are classes of their own", "[simgrid][fold]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  PlanRequest r = uneven(net, prof, 16, 10);
  r.options.stragglers.kind = "fixed";
  r.options.stragglers.slowdown = {1.6};  // node 0 slow, the rest at profile speed
  const SyncPlan slow = make_plan("wfbp", r);
  const int with_slow = agree(slow, {}, "wfbp, node 0 slow");
  r.options.stragglers.slowdown = {1, 1, 1, 1, 1, 3.0};  // node 5 dropped from every step
  r.options.stragglers.drop_after = 2;
  const SyncPlan dropped = make_plan("poseidon", r);
  REQUIRE(dropped.stragglers.dropped[0][5] == 1);
  agree(dropped, {}, "poseidon, node 5 dropped");
  agree(make_plan("ps", r), {}, "ps, node 5 dropped");
  // The slow node splits its class.
  r.options.stragglers = {};
  CHECK(sim::node_classes(make_plan("wfbp", r)).count() < with_slow);
}

TEST_CASE("folded by classes: dedicated servers with a slow worker", "[simgrid][fold]") {
  // Dedicated servers fold onto worker 0 only without stragglers; with them, the workers
  // fall into classes by their stragglers and the servers by their slices.
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const std::string s : {"ps", "wfbp", "poseidon"}) {
    PlanRequest r = uneven(net, prof, 12, 10);
    r.cluster.placement = ServerPlacement::dedicated;
    r.cluster.server_shards = 5;
    r.options.stragglers.kind = "fixed";
    r.options.stragglers.slowdown = {1, 1, 2.0};
    const SyncPlan plan = make_plan(s, r);
    CHECK_THAT(sim::fold_refusal(plan), Catch::Contains("stragglers"));
    const sim::NodeClasses c = sim::node_classes(plan);
    CHECK(c.worker_classes == 2);  // node 2, and the rest
    CHECK(c.count() >= 3);
    agree(plan, {}, s + ", dedicated, worker 2 slow");
  }
}

TEST_CASE("the fold by classes refuses what it cannot do exactly, and says why", "[simgrid][fold]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  const SyncPlan plan = make_plan("ps", uneven(net, prof, 16, 10));
  REQUIRE(sim::choose_fold(plan, sim::NetworkBackend::star).kind == Kind::by_classes);
  SECTION("SimGrid's own solver: no flow multiplicities") {
    const sim::FoldChoice c = sim::choose_fold(plan, sim::NetworkBackend::lmm);
    CHECK(c.kind == Kind::none);
    CHECK_THAT(c.why_not, Catch::Contains("unequal slices") && Catch::Contains("lmm"));
    sim::SimGridOptions o;
    o.network = sim::NetworkBackend::lmm;
    CHECK_THROWS_AS(simulate(plan, Reduce::on, o), InputError);
  }
  SECTION("stragglers drawn for every node: every node a class of its own") {
    PlanRequest r = uneven(net, prof, 16, 10);
    r.options.stragglers.kind = "lognormal";
    r.options.stragglers.sigma = 0.2;
    const sim::FoldChoice c = sim::choose_fold(make_plan("wfbp", r), sim::NetworkBackend::star);
    CHECK(c.kind == Kind::none);
    CHECK_THAT(c.why_not, Catch::Contains("16 classes of 16 workers"));
  }
  SECTION("a CPU-side optimizer beside the shards") {
    SyncPlan p = plan;
    for (Task& t : p.tasks)
      if (t.resource == Resource::server_cpu) {
        Task host = t;
        host.scope = Scope::worker;
        host.resource = Resource::host_cpu;
        host.tensor = -1;
        host.bytes = 1e6;
        host.deps.clear();
        p.tasks.push_back(host);
        break;
      }
    const sim::FoldChoice c = sim::choose_fold(p, sim::NetworkBackend::star);
    CHECK(c.kind == Kind::none);
    CHECK_THAT(c.why_not, Catch::Contains("CPU-side optimizer"));
  }
  SECTION("every node different: nothing to gain") {
    SyncPlan p;
    p.workers = p.cluster.nodes = p.cluster.server_shards = 3;
    p.cluster.placement = ServerPlacement::colocated;
    Tensor t;
    for (int s = 0; s < 3; ++s) t.slices.push_back(Slice{s, double(s + 1), 1});
    p.tensors.push_back(t);
    CHECK_THAT(sim::class_fold_refusal(p, sim::node_classes(p), sim::NetworkBackend::star),
               Catch::Contains("3 classes of 3 workers"));
  }
}
