// The event-driven engines' shared core: what SimGrid's executor (sim/executor.hpp) and
// each live node (live/node.cpp) do alike, written once. It releases a plan's task
// instances as their dependencies complete (model/plan/instance_graph.hpp), dispatches
// each to the engine by what its task occupies, counts the parts an instance runs as
// (a GPU per stream, a flow, a collective's channel), and records what the time breakdown
// walks (model/run/breakdown.hpp: when each instance was ready and started, what released
// it) and when each ended.
//
// An engine drives it through a narrow interface, as ASTRA-sim's system layer drives its
// network backends: the core asks it to occupy a resource for an instance or to start an
// instance's network transfer, and what time it is; the engine answers with expect() and
// part_done(), complete(), and delivered() as a push's flows land at their shards. No
// engine decides when an instance may start, and the core knows no engine's resources.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/plan/instance_graph.hpp"
#include "model/run/breakdown.hpp"

namespace possim {

class ExecutorCore;

class ExecutorBackend {
 public:
  virtual ~ExecutorBackend() = default;
  virtual double now() const = 0;
  // Runs `in` on its task's resource: a GPU stream, a PCIe link, the GPU-to-GPU path, a
  // shard's CPU, a barrier's fixed round. The engine either calls core.complete(in) at once
  // (nothing to do) or core.expect(in, parts) before it starts anything that could end,
  // then core.part_done(in) as each part ends.
  virtual void occupy(ExecutorCore& core, const Instance& in) = 0;
  // Starts `in`'s network transfer (its flows, or its part of a collective), with the same
  // contract as occupy().
  virtual void transfer(ExecutorCore& core, const Instance& in) = 0;
  // Whether this executor runs `in`: a live node runs its own worker's, its shards' and
  // its replica of every cluster task; SimGrid runs them all.
  virtual bool owns(const Instance&) const { return true; }
  // Called as `in` is released: false skips it (SimGrid reports a repeating iteration from
  // the one it repeats).
  virtual bool admit(const Instance&) { return true; }
  // `in` has completed at at_s and its records are written; its dependents are not yet
  // released. Returns whether they are to be (SimGrid: not in a skipped iteration).
  virtual bool completed(const Instance&, double /*at_s*/) { return true; }
  // The graph refused a completion (an instance completed twice): a bug, the run's
  // numbers cannot be trusted.
  virtual void fault(const std::string& what) = 0;
};

class ExecutorCore {
 public:
  ExecutorCore(const SyncPlan& plan, ExecutorBackend& backend);

  const SyncPlan& plan() const { return graph_.plan(); }
  const InstanceGraph& graph() const { return graph_; }
  std::size_t id(const Instance& in) const { return graph_.index(in); }

  // Launches every instance this executor owns that waits for nothing.
  void start();
  // Records `in` as ready and started at ready_s (< 0: now) and hands it to the engine by
  // what its resource's amount is (model/plan/resource.hpp): flows to transfer(),
  // anything else to occupy().
  void launch(const Instance& in, double ready_s = -1);
  // `in` runs as `parts` parts, each ending with part_done().
  void expect(const Instance& in, int parts) { left_[id(in)] = parts; }
  int parts_left(const Instance& in) const { return left_[id(in)]; }
  // One part of `in` ended at at_s (< 0: now): true when it was the last. The engine may
  // then write what it knows of the whole instance before it calls complete().
  bool last_part(const Instance& in, double at_s = -1);
  // last_part(), and complete() when it was the last, at the latest part's end.
  void part_done(const Instance& in, double at_s = -1);
  // `in` completed at at_s (< 0: now): its end is recorded, and the instances it was the
  // last wait of are launched, ready from at_s. A live GPU kernel that ends releases the
  // next from its due end, not from when its thread woke: a CUDA stream runs queued
  // kernels back to back, and a late wake-up must not add to every kernel of a chain.
  void complete(const Instance& in, double at_s = -1);
  // Another executor's instance completed (a live node's notice from a peer): the ones
  // here that waited for it are released.
  void completed_elsewhere(const Instance& in);
  // One (not dropped) worker's flow of push `push` carrying slice `slice` landed at `shard`.
  void delivered(const Instance& push, int shard, int slice);

  // What the time breakdown walks, per instance (graph index).
  CriticalPath& path() { return path_; }
  const CriticalPath& path() const { return path_; }
  InstanceTiming& timing(const Instance& in) { return path_.at(id(in)); }
  // When instance i ended here; < 0 if it has not (or ran elsewhere).
  double end_s(std::size_t i) const { return end_s_[i]; }
  std::size_t in_flight() const { return in_flight_; }  // launched here, not yet complete

 private:
  bool mark(const Instance& in);
  void release(const Instance& done, double at_s);

  ExecutorBackend& backend_;
  InstanceGraph graph_;
  CriticalPath path_;
  std::vector<int> left_;       // per instance: parts still running
  std::vector<double> end_s_;   // per instance: when it completed here, -1 before
  std::size_t in_flight_ = 0;
};

}  // namespace possim
