#include "model/run/timeline.hpp"

#include <algorithm>

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
    : plan_(plan), on_(opt.timeline), traced_(opt.trace_workers), workers_(plan.workers) {}

std::string Timeline::name_of(const Task& task) const {
  return task.display_label() + (task.layer >= 0 ? " " + plan_.layers[std::size_t(task.layer)].name : "");
}

bool Timeline::traced(const Instance& in) const {
  return plan_.tasks[in.task].scope != Scope::worker || traced_.contains(shown(in.who));
}

void Timeline::instance(const Instance& in, double start_s, double end_s, const std::string& lane) {
  if (!on_ || !traced(in)) return;
  const Task& task = plan_.tasks[in.task];
  TimelineEvent e;
  const bool by_worker = task.scope == Scope::worker;
  e.track = track_of(plan_, by_worker ? Instance{in.t, in.task, shown(in.who)} : in, lane);
  e.name = name_of(task);
  e.category = to_string(task.step);
  e.start_s = start_s;
  e.duration_s = end_s - start_s;
  e.iteration = in.t;
  e.layer = task.layer;
  e.worker = by_worker ? shown(in.who) : -1;
  if (task.tensor >= 0 && task.scope == Scope::shard) {
    const Slice& slice = plan_.tensors[std::size_t(task.tensor)].slices[std::size_t(in.who)];
    e.shard = slice.shard;
    e.bytes = task.bytes > 0 ? task.bytes : slice.bytes;
  } else if (task.bytes > 0) {
    e.bytes = task.bytes;
  } else if (task.tensor >= 0) {
    e.bytes = plan_.tensors[std::size_t(task.tensor)].bytes;
  }
  events_.push_back(std::move(e));
}

void Timeline::flow(const Instance& in, int src_node, int dst_node, double start_s, double end_s, double bytes,
                    int shard) {
  if (!on_) return;
  const Task& task = plan_.tasks[in.task];
  // The nodes of traced workers (node w hosts worker w) and the dedicated server nodes.
  for (const auto& [node, peer, dir] : {std::tuple<int, int, int>{src_node, dst_node, 0},
                                        std::tuple<int, int, int>{dst_node, src_node, 1}}) {
    if (node < workers_ && !traced_.contains(node)) continue;
    const auto [it, fresh] = on_nic_.try_emplace({in.t, in.task, node, dir}, Merged{events_.size()});
    if (fresh) {
      TimelineEvent e{"node " + std::to_string(node) + (dir == 0 ? " NIC tx" : " NIC rx"), name_of(task),
                      to_string(task.step), start_s, end_s - start_s, in.t, task.layer, -1};
      e.bytes = bytes;
      e.peer = peer;
      e.shard = shard;
      e.flows = 1;
      events_.push_back(std::move(e));
      continue;
    }
    TimelineEvent& e = events_[it->second.event];
    const double end = std::max(e.start_s + e.duration_s, end_s);
    e.start_s = std::min(e.start_s, start_s);
    e.duration_s = end - e.start_s;
    e.bytes = e.bytes < 0 || bytes < 0 ? -1 : e.bytes + bytes;
    ++e.flows;
    it->second.peers |= e.peer != peer;
    it->second.shards |= e.shard != shard;
    if (it->second.peers) e.peer = -1;
    if (it->second.shards) e.shard = -1;
  }
}

}  // namespace possim
