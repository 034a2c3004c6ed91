// What a trace shows of a plan's instances, written once for the event-driven engines
// (SimGrid's recorder, the live coordinator): the track an instance is drawn on (its
// resource's track from model/plan/resource.hpp, after its worker, its shard or nothing,
// by the task's scope), its name and category (the task's step), and which instances a
// run keeps (RunOptions::timeline, trace_workers). The engines say only when each part ran.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "model/plan/instance_graph.hpp"
#include "model/run/engine.hpp"
#include "model/run/result.hpp"

namespace possim {

// "worker 3 GPU", "shard 1 CPU", "step sync"; `lane` (a GPU of a multi-GPU node: "GPU 2")
// replaces the resource's own track name where given.
std::string track_of(const SyncPlan& plan, const Instance& in, const std::string& lane = "");

class Timeline {
 public:
  Timeline(const SyncPlan& plan, const RunOptions& opt);

  bool on() const { return on_; }
  // A run folded by classes (sim/fold.hpp): its worker w is the cluster's worker ids[w], of
  // `workers` (the nodes below that are workers' nodes).
  void show_workers_as(std::vector<int> ids, int workers) {
    shown_as_ = std::move(ids);
    workers_ = workers;
  }
  // `in` (or one part of it) ran from start_s to end_s.
  void instance(const Instance& in, double start_s, double end_s, const std::string& lane = "");
  // One flow of network instance `in`, on its sender's NIC tx and its receiver's NIC rx
  // tracks (those of traced workers' nodes and of dedicated server nodes). A NIC's flows of
  // one task and iteration (all workers' and shards' instances of it) are one event, from
  // the first's start to the last's end, with their bytes summed and counted: a NIC then
  // shows a few tasks at once rather than one slice per peer.
  void flow(const Instance& in, int src_node, int dst_node, double start_s, double end_s, double bytes = -1,
            int shard = -1);

  const std::vector<TimelineEvent>& events() const { return events_; }

 private:
  std::string name_of(const Task& task) const;
  bool traced(const Instance& in) const;
  int shown(int w) const { return shown_as_.empty() ? w : shown_as_[std::size_t(w)]; }

  const SyncPlan& plan_;
  bool on_;
  WorkerSelection traced_;
  std::vector<int> shown_as_;  // empty: worker w is w
  int workers_;
  std::vector<TimelineEvent> events_;
  struct Merged {
    std::size_t event = 0;
    bool peers = false, shards = false;  // several peers, several shards
  };
  // (iteration, task, node, 0 tx / 1 rx) -> its event
  std::map<std::tuple<int, std::uint32_t, int, int>, Merged> on_nic_;
};

}  // namespace possim
