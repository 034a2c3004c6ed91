// The event-driven engines' shared core (model/run/executor_core.hpp) under the smallest
// engine there is: one event queue, every task its uncontended time (task_cost.hpp). It
// must reproduce the one-node golden plan's hand-worked timeline, record what released
// each instance, and honour each hook of the binding: dispatch by amount, parts, admit,
// completed, fault.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <queue>
#include <tuple>

#include "model/plan/task_cost.hpp"
#include "model/run/executor_core.hpp"
#include "model/run/plan_json.hpp"

using namespace possim;

namespace {

// Events in time order; ties in the order they were scheduled.
class QueueEngine : public ExecutorBackend {
 public:
  explicit QueueEngine(int parts = 1) : parts_(parts) {}
  double now() const override { return now_; }
  void occupy(ExecutorCore& core, const Instance& in) override {
    ++occupied;
    core.expect(in, parts_);
    for (int p = 0; p < parts_; ++p) schedule(in, resource_seconds(core.plan().rates, core.plan().tasks[in.task]));
  }
  void transfer(ExecutorCore& core, const Instance& in) override {
    ++transferred;
    core.complete(in);
  }
  bool admit(const Instance& in) override { return in.t != skip_iteration; }
  bool completed(const Instance& in, double) override { return !(in.t == hold_iteration && in.task == hold_task); }
  void fault(const std::string& what) override { faults.push_back(what); }

  void run(ExecutorCore& core) {
    core.start();
    while (!events_.empty()) {
      const auto [at, seq, t, task, who] = events_.top();
      events_.pop();
      now_ = at;
      core.part_done(Instance{t, task, who}, at);
    }
  }

  int occupied = 0, transferred = 0;
  int skip_iteration = -1;
  int hold_iteration = -1;
  std::uint32_t hold_task = 0;
  std::vector<std::string> faults;

 private:
  void schedule(const Instance& in, double seconds) {
    events_.emplace(now_ + seconds, seq_++, in.t, in.task, in.who);
  }
  using Event = std::tuple<double, long, int, std::uint32_t, int>;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  double now_ = 0;
  long seq_ = 0;
  int parts_;
};

SyncPlan serial_copies() {
  return load_plan((std::filesystem::path(POSSIM_TESTS_DIR) / "golden" / "serial_copies.plan.json").string());
}

}  // namespace

TEST_CASE("executor core: the one-node golden plan's timeline, iteration by iteration, and what released each",
          "[executor_core][golden]") {
  const SyncPlan plan = serial_copies();
  QueueEngine engine;
  ExecutorCore core(plan, engine);
  engine.run(core);
  REQUIRE(core.graph().remaining() == 0);
  CHECK(core.in_flight() == 0);
  CHECK(engine.faults.empty());
  CHECK(engine.transferred == 0);  // no flows: every task went to occupy()
  CHECK(engine.occupied == int(plan.tasks.size()) * plan.iterations);
  // 10 + 20 + 2 x (1 + 0.01) ms an iteration, from the plan's own numbers.
  const auto copy = [&](const Task& t) { return plan.rates.pcie_latency_s + t.bytes / plan.rates.pcie_bytes_per_s; };
  const double iteration =
      plan.tasks[0].duration_s + plan.tasks[1].duration_s + copy(plan.tasks[2]) + copy(plan.tasks[3]);
  for (int t = 0; t < plan.iterations; ++t) {
    INFO("iteration " << t);
    CHECK(core.path().iteration_end(t) == Approx(iteration * (t + 1)).epsilon(1e-12));
    // The backward pass was released by the forward pass and ready when it ended.
    const std::size_t fwd = core.id(Instance{t, 0, 0}), bwd = core.id(Instance{t, 1, 0});
    CHECK(core.path().at(bwd).released_by == std::int64_t(fwd));
    CHECK(core.path().at(bwd).ready_s == core.end_s(fwd));
    CHECK(core.end_s(bwd) == Approx(core.end_s(fwd) + plan.tasks[1].duration_s).epsilon(1e-12));
    // The next iteration's forward pass waited for this one's barrier (lag 1).
    if (t > 0)
      CHECK(core.path().at(fwd).released_by == std::int64_t(core.id(Instance{t - 1, 4, 0})));
  }
}

TEST_CASE("executor core: an instance of several parts completes when its last part does, at that part's end",
          "[executor_core]") {
  const SyncPlan plan = serial_copies();
  QueueEngine engine(3);  // three parts of equal length, run in parallel
  ExecutorCore core(plan, engine);
  engine.run(core);
  REQUIRE(core.graph().remaining() == 0);
  const std::size_t fwd = core.id(Instance{0, 0, 0});
  CHECK(core.end_s(fwd) == Approx(plan.tasks[0].duration_s).epsilon(1e-12));
}

TEST_CASE("executor core: admit() skips instances, completed() withholds releases, a second completion is a fault",
          "[executor_core]") {
  const SyncPlan plan = serial_copies();
  {  // Iteration 1 skipped: nothing of it runs, and nothing after it is released.
    QueueEngine engine;
    engine.skip_iteration = 1;
    ExecutorCore core(plan, engine);
    engine.run(core);
    CHECK(engine.occupied == int(plan.tasks.size()));
    CHECK(core.graph().remaining() == core.graph().size() - plan.tasks.size());
    CHECK(core.in_flight() == 0);
  }
  {  // Iteration 0's backward pass completes but releases nothing: its copies never run.
    QueueEngine engine;
    engine.hold_iteration = 0;
    engine.hold_task = 1;
    ExecutorCore core(plan, engine);
    engine.run(core);
    CHECK(engine.occupied == 2);
    CHECK(core.end_s(core.id(Instance{0, 1, 0})) > 0);
    CHECK(core.end_s(core.id(Instance{0, 2, 0})) < 0);
  }
  {  // Completing an instance twice: the binding hears of it, the graph is unchanged.
    QueueEngine engine;
    ExecutorCore core(plan, engine);
    engine.run(core);
    const double end = core.end_s(0);
    core.complete(Instance{0, 0, 0}, 99.0);
    REQUIRE(engine.faults.size() == 1);
    CHECK(engine.faults[0].find("twice") != std::string::npos);
    CHECK(core.end_s(0) == end);
  }
}

TEST_CASE("executor core: what a peer released before start() (a live node's early flows) launches once",
          "[executor_core]") {
  // A live node handles its peers' frames before the coordinator's go makes it start(): an
  // instance completed elsewhere releases its dependents then, and start() must launch
  // neither it nor them again (it did: "an apply before any push", run twice).
  const SyncPlan plan = serial_copies();
  QueueEngine engine;
  ExecutorCore core(plan, engine);
  core.completed_elsewhere(Instance{0, 0, 0});
  CHECK(engine.occupied + engine.transferred == 1);  // what it released, launched at once
  engine.run(core);
  CHECK(engine.faults.empty());
  CHECK(core.graph().remaining() == 0);
  CHECK(engine.occupied + engine.transferred == int(core.graph().size()) - 1);  // each once, but the one done elsewhere
}
