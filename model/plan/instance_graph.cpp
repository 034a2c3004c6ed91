#include "model/plan/instance_graph.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "model/input/error.hpp"

namespace possim {

TemplateDependents::TemplateDependents(const SyncPlan& plan) : first_(plan.tasks.size() + 1, 0) {
  for (const Task& t : plan.tasks)
    for (const Dep& d : t.deps) ++first_[d.task + 1];
  for (std::size_t i = 1; i < first_.size(); ++i) first_[i] += first_[i - 1];
  list_.resize(first_.back());
  std::vector<std::uint32_t> at(first_.begin(), first_.end() - 1);
  for (std::uint32_t i = 0; i < plan.tasks.size(); ++i)
    for (const Dep& d : plan.tasks[i].deps) list_[at[d.task]++] = Dep{i, d.lag};
}

InstanceGraph::InstanceGraph(const SyncPlan& plan)
    : plan_(plan), k_(std::max(1, plan.iterations)), dependents_(plan) {
  const std::size_t n = plan.tasks.size();
  offset_.resize(n);
  shard_slice_.assign(n, {});
  for (std::uint32_t i = 0; i < n; ++i) {
    offset_[i] = stride_;
    stride_ += std::size_t(instances_of(i));
    const int tensor = plan.tasks[i].tensor;
    if (tensor >= 0) {
      shard_slice_[i].assign(std::size_t(plan.num_shards()), -1);
      const auto& slices = plan.tensors[std::size_t(tensor)].slices;
      for (std::size_t s = 0; s < slices.size(); ++s) shard_slice_[i][std::size_t(slices[s].shard)] = int(s);
    }
  }
  if (size() > std::size_t(std::numeric_limits<InstanceRef>::max()))
    throw InputError("plan '" + plan.strategy + "' has " + std::to_string(size()) +
                     " task instances, more than an engine that runs every instance indexes (" +
                     std::to_string(std::numeric_limits<InstanceRef>::max()) +
                     "): fewer iterations, or a run folded by symmetry");
  pending_.assign(size(), 0);
  done_.assign(size(), 0);
  released_by_.assign(size(), -1);
  remaining_ = size();
  // How many releases each instance waits for: one per dependency instance it needs.
  for (int t = 0; t < k_; ++t)
    for (std::uint32_t i = 0; i < n; ++i) {
      int need = 0;
      for (const Dep& d : plan.tasks[i].deps) {
        const int from = t - int(d.lag);
        if (from < 0) continue;
        if (plan.tasks[d.task].scope == Scope::cluster) need += 1;
        else if (!worker_scoped(d.task)) need += instances_of(d.task);
        else need += worker_scoped(i) ? 1 : plan.stragglers.active(from);
      }
      for (int who = 0; who < instances_of(i); ++who) pending_[index(Instance{t, i, who})] = need;
    }
}

int InstanceGraph::instances_of(std::uint32_t task) const {
  switch (plan_.tasks[task].scope) {
    case Scope::cluster: return 1;
    case Scope::shard: return int(plan_.tensors[std::size_t(plan_.tasks[task].tensor)].slices.size());
    case Scope::worker: return plan_.workers;
  }
  return 0;
}

std::vector<Instance> InstanceGraph::initially_ready() const {
  std::vector<Instance> ready;
  for (int t = 0; t < k_; ++t)
    for (std::uint32_t i = 0; i < plan_.tasks.size(); ++i)
      for (int who = 0; who < instances_of(i); ++who)
        // Not one already released: a live node can be sent flows (and so release an apply)
        // before it starts.
        if (const std::size_t at = index(Instance{t, i, who}); pending_[at] == 0 && released_by_[at] < 0 && !done_[at])
          ready.push_back(Instance{t, i, who});
  return ready;
}

void InstanceGraph::release(int t, std::uint32_t task, int who, std::size_t by, const Ready& ready) {
  const std::size_t i = index(Instance{t, task, who});
  if (--pending_[i] == 0) {
    released_by_[i] = InstanceRef(by);
    ready(Instance{t, task, who});
  }
}

// The apply of the same tensor waits for that very slice. An apply of another tensor
// (Adam: factors pushed, parameters applied) waits for its slice on the same shard.
// Matching by shard alone would release one slice twice and the other never where a
// tensor has two slices on one shard (TF stock's weights and biases on a single shard).
void InstanceGraph::delivered(const Instance& push, int shard, int slice, const Ready& ready) {
  if (dropped(push.t, push.who)) return;
  for (const Dep& d : dependents_[push.task]) {
    const int u = push.t + int(d.lag);
    if (u >= k_ || plan_.tasks[d.task].scope != Scope::shard) continue;
    const bool same_tensor = plan_.tasks[d.task].tensor == plan_.tasks[push.task].tensor;
    const int target = same_tensor ? slice : shard_slice_[d.task][std::size_t(shard)];
    if (target >= 0) release(u, d.task, target, index(push), ready);
  }
}

void InstanceGraph::mark_complete(const Instance& in) {
  const std::size_t id = index(in);
  if (done_[id])
    throw std::logic_error("task " + std::to_string(in.task) + " (" + plan_.tasks[in.task].display_label() +
                           ") of iteration " + std::to_string(in.t) + ", instance " + std::to_string(in.who) +
                           " completed twice");
  done_[id] = 1;
  --remaining_;
}

void InstanceGraph::release_dependents(const Instance& in, const Ready& ready) {
  const Task& done = plan_.tasks[in.task];
  for (const Dep& d : dependents_[in.task]) {
    const int u = in.t + int(d.lag);
    if (u >= k_) continue;
    const std::uint32_t i = d.task;
    switch (plan_.tasks[i].scope) {
      case Scope::worker:
        if (worker_scoped(in.task)) {
          release(u, i, in.who, index(in), ready);
        } else {
          for (int w = 0; w < plan_.workers; ++w) release(u, i, w, index(in), ready);
        }
        break;
      case Scope::cluster:
        if (!(worker_scoped(in.task) && dropped(in.t, in.who))) release(u, i, 0, index(in), ready);
        break;
      case Scope::shard:
        if (!worker_scoped(in.task)) {
          for (int s = 0; s < instances_of(i); ++s) release(u, i, s, index(in), ready);
        } else if (!dropped(in.t, in.who)) {
          // Slices this worker's flows reach were released on delivery; the rest now.
          const auto& slices = plan_.tensors[std::size_t(plan_.tasks[i].tensor)].slices;
          for (std::size_t s = 0; s < slices.size(); ++s) {
            const bool by_flow = done.pattern == FlowPattern::to_shards &&
                                 shard_slice_[in.task][std::size_t(slices[s].shard)] >= 0;
            if (!by_flow) release(u, i, int(s), index(in), ready);
          }
        }
        break;
    }
  }
}

}  // namespace possim
