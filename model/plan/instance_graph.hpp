// The plan unrolled: every instance of every task in every iteration, what each waits
// for, and whom it releases when it completes, by the fan-in rules of sync_plan.hpp, with
// stragglers dropped from aggregation. The SimGrid engine executes it instance by
// instance (the live engine will too); the analytic engine list-schedules its template
// view, one representative instance per task (dependents(), first_needs()).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "model/plan/instance_ref.hpp"
#include "model/plan/sync_plan.hpp"

namespace possim {

struct Instance {
  int t = 0;               // iteration
  std::uint32_t task = 0;  // index into plan.tasks
  int who = 0;             // worker (worker scope), slice index (shard scope), 0 (cluster)
};

// Dependents of each template task: (task that waits, lag), in one array: [i] lists task
// i's in the order of the tasks that name it.
class TemplateDependents {
 public:
  explicit TemplateDependents(const SyncPlan& plan);
  struct Range {
    const Dep *b, *e;
    const Dep* begin() const { return b; }
    const Dep* end() const { return e; }
    std::size_t size() const { return std::size_t(e - b); }
  };
  Range operator[](std::size_t i) const { return {list_.data() + first_[i], list_.data() + first_[i + 1]}; }

 private:
  std::vector<std::uint32_t> first_;  // task i's are list_[first_[i] .. first_[i + 1])
  std::vector<Dep> list_;
};

class InstanceGraph {
 public:
  using Ready = std::function<void(const Instance&)>;

  explicit InstanceGraph(const SyncPlan& plan);

  const SyncPlan& plan() const { return plan_; }
  int iterations() const { return k_; }
  std::size_t per_iteration() const { return stride_; }  // instances in one iteration
  std::size_t size() const { return stride_ * std::size_t(k_); }
  std::size_t index(const Instance& in) const {
    return std::size_t(in.t) * stride_ + offset_[in.task] + std::size_t(in.who);
  }
  int instances_of(std::uint32_t task) const;
  bool worker_scoped(std::uint32_t task) const { return plan_.tasks[task].scope == Scope::worker; }
  bool dropped(int t, int w) const { return plan_.stragglers.dropped[std::size_t(t)][std::size_t(w)] != 0; }
  const TemplateDependents& dependents() const { return dependents_; }

  // Instances that wait for nothing, in (iteration, task, who) order (none that a delivery
  // or a completion has released already).
  std::vector<Instance> initially_ready() const;
  // Records that `in` has completed; throws std::logic_error if it had before.
  void mark_complete(const Instance& in);
  // Counts completed `done` as met for every instance it feeds, and calls ready() on each
  // that needs nothing more, in order. A to_shards task's flows release the slices they
  // reach (delivered()); its completion releases the rest.
  void release_dependents(const Instance& done, const Ready& ready);
  // One (not dropped) worker's flow carrying slice `slice` (on `shard`) of to_shards task
  // `push` landed: the apply of that slice may count it.
  void delivered(const Instance& push, int shard, int slice, const Ready& ready);
  // Instances not yet complete.
  std::size_t remaining() const { return remaining_; }
  // The instance (by index) whose completion or delivered flow made instance i ready; -1
  // for one that waited for nothing.
  InstanceRef released_by(std::size_t i) const { return released_by_[i]; }

 private:
  void release(int t, std::uint32_t task, int who, std::size_t by, const Ready& ready);

  const SyncPlan& plan_;
  int k_ = 1;
  std::vector<std::size_t> offset_;
  std::size_t stride_ = 0;
  TemplateDependents dependents_;
  // shard_slice_[task][shard] = slice index of that shard in the task's tensor, or -1
  // (the last one, when a tensor has several slices on one shard: TF stock's variables).
  std::vector<std::vector<int>> shard_slice_;
  std::vector<int> pending_;
  std::vector<char> done_;
  std::vector<InstanceRef> released_by_;
  std::size_t remaining_ = 0;
};

}  // namespace possim
