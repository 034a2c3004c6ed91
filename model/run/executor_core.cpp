#include "model/run/executor_core.hpp"

#include <algorithm>
#include <stdexcept>

namespace possim {

ExecutorCore::ExecutorCore(const SyncPlan& plan, ExecutorBackend& backend)
    : backend_(backend), graph_(plan), path_(plan, graph_.size(), graph_.iterations()) {
  left_.assign(graph_.size(), 0);
  end_s_.assign(graph_.size(), -1.0);
}

void ExecutorCore::start() {
  // The ready set is taken before any launch: a launch can yield to other actors (SimGrid),
  // which may bring more instances to zero pending and launch those themselves.
  for (const Instance& in : graph_.initially_ready())
    if (backend_.owns(in)) launch(in);
}

void ExecutorCore::launch(const Instance& in, double ready_s) {
  if (!backend_.admit(in)) return;
  ++in_flight_;
  const std::size_t i = id(in);
  InstanceTiming& x = path_.at(i);
  x.ready_s = x.start_s = ready_s >= 0 ? ready_s : backend_.now();  // started now, unless the engine queues it (a GPU stream)
  x.task = in.task;
  x.released_by = graph_.released_by(i);
  if (info(plan().tasks[in.task].resource).amount == Amount::flows) backend_.transfer(*this, in);
  else backend_.occupy(*this, in);
}

bool ExecutorCore::last_part(const Instance& in, double at_s) {
  const std::size_t i = id(in);
  end_s_[i] = std::max(end_s_[i], at_s);  // the latest part's end, where parts say when they ended
  return --left_[i] == 0;
}

void ExecutorCore::part_done(const Instance& in, double at_s) {
  if (last_part(in, at_s)) complete(in, end_s_[id(in)]);
}

void ExecutorCore::complete(const Instance& in, double at_s) {
  const double at = at_s >= 0 ? at_s : backend_.now();
  if (!mark(in)) return;
  const std::size_t i = id(in);
  end_s_[i] = at;
  path_.finished(i, in.t, at);
  --in_flight_;
  if (backend_.completed(in, at)) release(in, at);
}

void ExecutorCore::completed_elsewhere(const Instance& in) {
  if (mark(in)) release(in, backend_.now());
}

void ExecutorCore::delivered(const Instance& push, int shard, int slice) {
  graph_.delivered(push, shard, slice, [this](const Instance& r) {
    if (backend_.owns(r)) launch(r);
  });
}

bool ExecutorCore::mark(const Instance& in) {
  try {
    graph_.mark_complete(in);
    return true;
  } catch (const std::logic_error& e) {
    backend_.fault(e.what());
    return false;
  }
}

// Time passes explicitly, not in a member: SimGrid's actors interleave at every simcall,
// so a completion may begin while another's release is under way.
void ExecutorCore::release(const Instance& done, double at_s) {
  graph_.release_dependents(done, [this, at_s](const Instance& r) {
    if (backend_.owns(r)) launch(r, at_s);
  });
}

}  // namespace possim
