// The timeline every event-driven engine writes through (model/run/timeline.hpp): an
// instance's track follows its resource's row and its task's scope, a GPU lane replaces the
// resource's name, and only the selected workers' instances and NICs are kept.
#include <catch2/catch.hpp>

#include "model/run/plan_json.hpp"
#include "model/run/timeline.hpp"

using namespace possim;

namespace {

SyncPlan two_node_ps() { return load_plan(std::string(POSSIM_TESTS_DIR) + "/golden/two_node_ps.plan.json"); }

}  // namespace

TEST_CASE("timeline: a track is the resource's, after the worker, the shard or nothing", "[timeline]") {
  const SyncPlan p = two_node_ps();  // tasks: forward, backward, push, apply, pull, barrier
  CHECK(track_of(p, Instance{0, 0, 1}) == "worker 1 GPU");
  CHECK(track_of(p, Instance{0, 0, 1}, "GPU 3") == "worker 1 GPU 3");
  CHECK(track_of(p, Instance{0, 2, 0}) == "worker 0 net");
  CHECK(track_of(p, Instance{0, 3, 1}) == "shard " + std::to_string(p.tensors[0].slices[1].shard) + " CPU");
  CHECK(track_of(p, Instance{0, 5, 0}) == "step sync");
}

TEST_CASE("timeline: only the selected workers' instances and NICs are recorded, with the task's step and layer",
          "[timeline]") {
  const SyncPlan p = two_node_ps();
  RunOptions opt;
  SECTION("off: nothing") {
    Timeline tl(p, opt);
    tl.instance(Instance{0, 0, 0}, 0, 1);
    tl.flow(Instance{0, 2, 0}, 0, 1, 0, 1);
    CHECK(tl.events().empty());
  }
  SECTION("worker 0 of 2") {
    opt.timeline = true;
    opt.trace_workers = WorkerSelection::parse("0", "--trace-workers");
    Timeline tl(p, opt);
    tl.instance(Instance{1, 1, 1}, 0.5, 0.7);   // worker 1's backward: left out
    tl.instance(Instance{1, 1, 0}, 0.25, 0.5);  // worker 0's
    tl.instance(Instance{1, 3, 1}, 0.5, 0.6);   // a shard's apply: always kept
    tl.flow(Instance{1, 2, 1}, 1, 0, 0.5, 0.75);  // worker 1's push: node 0's rx only
    REQUIRE(tl.events().size() == 3);
    const TimelineEvent& b = tl.events()[0];
    CHECK(b.track == "worker 0 GPU");
    CHECK(b.category == "backward");
    CHECK(b.name == p.tasks[1].display_label() + std::string(" ") + p.layers[0].name);
    CHECK(b.start_s == 0.25);
    CHECK(b.duration_s == 0.25);
    CHECK(b.iteration == 1);
    CHECK(b.layer == 0);
    CHECK(b.worker == 0);
    CHECK(tl.events()[1].worker == -1);
    CHECK(tl.events()[1].category == "apply");
    CHECK(tl.events()[1].shard == p.tensors[0].slices[1].shard);  // a shard's work says which
    CHECK(tl.events()[1].bytes > 0);
    CHECK(tl.events()[2].track == "node 0 NIC rx");
    CHECK(tl.events()[2].category == "push");
  }
}

TEST_CASE("timeline: a NIC's flows of one task and iteration are one event with their bytes and peer",
          "[timeline]") {
  const SyncPlan p = two_node_ps();  // task 2: the push
  RunOptions opt;
  opt.timeline = true;
  Timeline tl(p, opt);
  tl.flow(Instance{1, 2, 1}, 1, 0, 0.5, 0.75, 100, 0);
  tl.flow(Instance{1, 2, 1}, 1, 0, 0.6, 0.9, 50, 0);   // the same NICs: merged
  tl.flow(Instance{1, 2, 1}, 1, 2, 0.4, 0.8, 10, 1);   // node 1's tx again, another peer and shard
  tl.flow(Instance{2, 2, 1}, 1, 0, 1.5, 1.75, 100, 0);  // the next iteration: its own
  REQUIRE(tl.events().size() == 5);  // node 1 tx, node 0 rx, node 2 rx; then node 1 tx, node 0 rx
  const TimelineEvent &tx = tl.events()[0], &rx = tl.events()[1], &server = tl.events()[2];
  CHECK(tx.track == "node 1 NIC tx");
  CHECK(tx.start_s == 0.4);
  CHECK(tx.duration_s == Approx(0.5));
  CHECK(tx.flows == 3);
  CHECK(tx.bytes == 160);
  CHECK(tx.peer == -1);  // nodes 0 and 2
  CHECK(tx.shard == -1);
  CHECK(rx.track == "node 0 NIC rx");
  CHECK(rx.flows == 2);
  CHECK(rx.bytes == 150);
  CHECK(rx.peer == 1);
  CHECK(rx.shard == 0);
  CHECK(rx.start_s == 0.5);
  CHECK(rx.duration_s == Approx(0.4));
  CHECK(server.track == "node 2 NIC rx");
  CHECK(server.peer == 1);
  CHECK(server.flows == 1);
  CHECK(tl.events()[3].iteration == 2);
  CHECK(tl.events()[3].flows == 1);
}
