// Where an iteration's time goes, seen from a representative GPU (worker 0's leader):
// what it computes, and what it waits for when it does not.
//
// Iteration t spans [end(t-1), end(t)] (end: its last instance to finish). While the
// representative GPU runs a kernel, that time counts as the kernel's share: compute (the
// forward and backward passes), SF rebuild or quantization. A kernel slowed by a
// straggler factor s counts (1 - 1/s) of it as barrier wait, so compute is what the
// kernel takes at nominal speed. While the GPU is idle, the gap is explained by walking
// back from the instance that ended it (the kernel that started next, or the iteration's
// last instance): that instance covers the time from its start, then the walk follows
// whatever held it back (its resource's previous instance if it had to queue for it,
// else the dependency whose completion made it ready) until the walk reaches the gap's
// start. Pieces of flows count as exposed network, of PCIe and GPU-to-GPU copies as
// exposed PCIe (less the stack's host work on the copied bytes, which runs in series with
// the DMA at the same rate: exposed host copy), of shard applies as server apply, and of another GPU's kernels as
// barrier wait (the GPU waits for its peers). The pieces tile the iteration, so the
// shares add up to the iteration time by construction, and compute + rebuild +
// quantization is the GPU's busy time.
//
// Engines record, per task instance, when it became ready and started, what released it,
// and what it queued behind; and the representative GPU's busy intervals.
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/plan/instance_ref.hpp"
#include "model/plan/time_share.hpp"

namespace possim {

struct SyncPlan;
struct Task;

// The share a task's own time counts as while the representative GPU runs it: a table keyed
// by its step (forward and backward passes: compute; rebuild; quantize), one entry per
// step. Time the GPU waits for a task counts as the task's resource says
// (ResourceInfo::waited, model/plan/resource.hpp).
TimeShare share_of(const Task& t);

struct Breakdown {
  std::array<double, kTimeShares> s{};
  double& operator[](TimeShare x) { return s[std::size_t(x)]; }
  double operator[](TimeShare x) const { return s[std::size_t(x)]; }
  double total() const;
  Breakdown& operator+=(const Breakdown& o);
  Breakdown& operator*=(double f);
};

// What the walk needs of one instance. Engines index instances as they like (the
// analytic engine: iteration x template task; SimGrid: the instance graph's index).
struct InstanceTiming {
  static constexpr InstanceRef kNone = -1;
  double ready_s = 0;
  double start_s = 0;
  InstanceRef released_by = kNone;    // the instance whose completion made it ready
  InstanceRef queued_behind = kNone;  // the instance its resource ran before it, if it waited
  std::uint32_t task = 0;
  float slowdown = 1;                  // GPU: the straggler factor it ran under
};

class CriticalPath {
 public:
  CriticalPath(const SyncPlan& plan, std::size_t instances, int iterations);

  InstanceTiming& at(std::size_t i) { return timing_[i]; }
  const InstanceTiming& at(std::size_t i) const { return timing_[i]; }
  // Instance i of iteration t finished at end_s (the last one to finish ends t).
  void finished(std::size_t i, int t, double end_s);
  // The representative GPU ran instance i from start_s to end_s (intervals never overlap).
  void gpu_busy(std::size_t i, double start_s, double end_s);

  double iteration_end(int t) const { return end_[std::size_t(t)]; }
  // A piece of an iteration's time that a layer's task explains: (plan layer, its shares).
  using LayerPiece = std::pair<int, Breakdown>;
  // Iteration t's time by share, in total and, where `pieces` is given, the layers' pieces
  // in the order the total took them; pieces of tasks with no layer count in the total only.
  Breakdown attribute(int t, std::vector<LayerPiece>* pieces) const;

 private:
  struct Busy {
    double start_s, end_s;
    std::size_t instance;
  };
  // Explains the idle time (lower, cursor] by walking back from instance `at`.
  void walk(std::int64_t at, double cursor, double lower, Breakdown& out, std::vector<LayerPiece>* pieces) const;
  void count(const Task& task, const Breakdown& b, Breakdown& out, std::vector<LayerPiece>* pieces) const;
  Breakdown piece(const Task& task, TimeShare share, double seconds) const;

  const SyncPlan& plan_;
  std::vector<InstanceTiming> timing_;
  std::vector<double> end_;
  std::vector<std::int64_t> last_;
  std::vector<Busy> busy_;  // by start
};

struct Result;
// r.breakdown and each layer row's: the mean over the steady iterations (after the first,
// as iteration_s), each iteration t taken from the simulated iteration source[t].
void fill_breakdown(const SyncPlan& plan, const CriticalPath& path, const std::vector<int>& source, Result& r);

}  // namespace possim
