#include "model/run/timeline.hpp"

namespace possim {

std::string track_of(const SyncPlan& plan, const Instance& in, const std::string& lane) {
  const Task& task = plan.tasks[in.task];
  const std::string track = lane.empty() ? info(task.resource).track : lane;
  switch (task.scope) {
    case Scope::cluster: return track;
    case Scope::shard:
      return "shard " + std::to_string(plan.tensors[std::size_t(task.tensor)].slices[std::size_t(in.who)].shard) + " " +
             track;
    case Scope::worker: break;
  }
  return "worker " + std::to_string(in.who) + " " + track;
}

Timeline::Timeline(const SyncPlan& plan, const RunOptions& opt)
    : plan_(plan), on_(opt.timeline), traced_(opt.trace_workers) {}

std::string Timeline::name_of(const Task& task) const {
  return task.label + (task.layer >= 0 ? " " + plan_.layers[std::size_t(task.layer)].name : "");
}

bool Timeline::traced(const Instance& in) const {
  return plan_.tasks[in.task].scope != Scope::worker || traced_.contains(in.who);
}

void Timeline::instance(const Instance& in, double start_s, double end_s, const std::string& lane) {
  if (!on_ || !traced(in)) return;
  const Task& task = plan_.tasks[in.task];
  TimelineEvent e;
  e.track = track_of(plan_, in, lane);
  e.name = name_of(task);
  e.category = to_string(task.step);
  e.start_s = start_s;
  e.duration_s = end_s - start_s;
  e.iteration = in.t;
  e.layer = task.layer;
  e.worker = task.scope == Scope::worker ? in.who : -1;
  events_.push_back(std::move(e));
}

void Timeline::flow(const Instance& in, int src_node, int dst_node, double start_s, double end_s) {
  if (!on_) return;
  const Task& task = plan_.tasks[in.task];
  // The nodes of traced workers (node w hosts worker w) and the dedicated server nodes.
  for (const auto& [node, dir] : {std::pair<int, const char*>{src_node, " NIC tx"},
                                  std::pair<int, const char*>{dst_node, " NIC rx"}})
    if (node >= plan_.workers || traced_.contains(node))
      events_.push_back(TimelineEvent{"node " + std::to_string(node) + dir, name_of(task), to_string(task.step),
                                      start_s, end_s - start_s, in.t, task.layer, -1});
}

}  // namespace possim
