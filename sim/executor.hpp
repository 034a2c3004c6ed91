// Executes a SyncPlan on a SimGrid platform. The event-driven engines' shared core
// (model/run/executor_core.hpp) decides when an instance may start and records what the
// breakdown walks; this executor is SimGrid's binding of the plan's resources: it turns an
// instance into activities by the resource the task occupies, never by which step it is: an Exec
// on a GPU stream, the intra-node path or a shard's CPU; a Comm on PCIe or between NICs;
// a collective's rounds of Comms; or nothing (a barrier). WFBP overlap, incast and hot
// spots arise from these events and SimGrid's bandwidth sharing, never from a fraction
// typed in.
//
// Actors, one function each under sim/actors/: one per GPU runs its kernels in order of
// readiness (gpu_stream.cpp); flows between NICs go to the network backend
// (sim/network/nic_network.hpp), which calls back as each lands (flows.cpp, collective.cpp),
// after the worker's per-message cost, a wait queued on one actor (sim/delays.hpp);
// PCIe copies go through a network backend of their own (pcie_copy.cpp); short-lived
// actors run each intra-node copy or apply (host_exec.cpp) and collective channel
// (collective.cpp); only SimGrid's own network solver needs a receiver, one drain per
// node (start_drains), and runs each copy as a Comm in an actor of its own. A symmetric cluster
// may run folded onto worker 0 (sim/fold.hpp): `plan` is then folded_plan(), and the
// flows, collectives and applies of worker 0 are those of the full plan; or by classes of
// nodes (class_folded_plan(): worker c is class c's least node, its flows grouped by class). A shard applies a
// slice once every (not dropped) worker's flow to it has landed: Poseidon's per-KV update
// counting. Iterations that provably repeat are reported from the one they repeat
// (sim/repeat_detector.hpp); statistics and the timeline go to sim/recorder.hpp.
#pragma once
#include <deque>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include <simgrid/s4u.hpp>

#include "model/run/engine.hpp"
#include "model/run/breakdown.hpp"
#include "model/run/executor_core.hpp"
#include "sim/delays.hpp"
#include "sim/fold.hpp"
#include "sim/network/nic_network.hpp"
#include "sim/platform.hpp"
#include "sim/progress.hpp"
#include "sim/recorder.hpp"
#include "sim/repeat_detector.hpp"
#include "sim/simgrid_engine.hpp"

namespace possim::sim {

// What flows of one slice share, where one flow does not stand alone: how many are still
// in flight (several with flow_per_kv_pair: the shard counts the slice as delivered when
// the last one lands) and, folded by classes (sim/fold.hpp), the (shard, slice) each flow
// a push's flow stands for delivers.
struct SliceGroup {
  int left = 1;
  std::vector<std::pair<int, int>> delivers;
};

// A flow between two nodes' NICs, with what the statistics need. Millions are in flight
// in a full run of thousands of nodes: it is kept small (one pointer for what is shared).
struct HostFlow {
  double bytes = 0;
  int messages = 0;
  int shard = -1;
  int slice = -1;  // to_shards: index of the slice it carries in the task's tensor
  int src_node = -1, dst_node = -1;
  std::shared_ptr<SliceGroup> group;  // null: this flow alone carries its slice
  // Folded by classes: the flows it stands for.
  NicNetwork::Multiplicity m;
  double flows = 1;
};

class Executor final : public ExecutorBackend {
 public:
  // `plan` is what runs: the full plan, or folded_plan() of `fold.full` (sim/fold.hpp).
  Executor(const SyncPlan& plan, const RunOptions& opt, const SimGridOptions& sim, const Platform& platform,
           Fold fold = {});
  // Counts into `p` (the forked child's shared progress, sim/progress.hpp) and keeps the
  // run within p->step_budget; call before start().
  void report_to(SimProgress* p) { progress_ = p; }
  // Spawns the actors; call before Engine::run().
  void start();
  // After Engine::run(): everything an engine reports. Throws if some task instance
  // never ran (a plan whose dependencies cannot all be met).
  Result result() const;

 private:
  struct Outgoing {
    HostFlow flow;
    Instance in;
    bool notify_shards;
    double t0;
  };
  std::size_t id(const Instance& in) const { return core_.id(in); }
  std::size_t offset(const Instance& in) const { return id(in) - std::size_t(in.t) * graph().per_iteration(); }
  const InstanceGraph& graph() const { return core_.graph(); }

  // The binding (ExecutorBackend): SimGrid's clock, its dispatch of the plan's resources.
  double now() const override { return simgrid::s4u::Engine::get_clock(); }
  void occupy(ExecutorCore& core, const Instance& in) override;
  void transfer(ExecutorCore& core, const Instance& in) override;
  bool admit(const Instance& in) override;
  bool completed(const Instance& in, double at_s) override;
  void fault(const std::string& what) override;

  void launch(const Instance& in) { core_.launch(in); }
  void complete(const Instance& in) { core_.complete(in); }
  void stop_drains();
  void start_drains();
  void flow_landed(const Instance& in, const HostFlow& f);
  // Folded by classes: the flows of `flows` (worker in.who's in the full cluster) between
  // the same two classes that carry the same slice position, one HostFlow each; a local
  // slice is delivered at once only where its class holds no other node.
  std::vector<HostFlow> group_by_classes(const Instance& in, const std::vector<Flow>& flows, bool push);
  void append_copies(std::vector<HostFlow>& remote, HostFlow h) const;
  // Folded onto worker 0, colocated: every slice of a push is delivered when worker 0's push completes.
  void deliver_all(const Instance& in);
  // The full cluster's per-node and per-link figures from a folded run (sim/fold.hpp).
  void unfold(Result& r) const;
  // The plan as written (the full cluster), whether or not the run is folded.
  const SyncPlan& full() const { return fold_.on() ? *fold_.full : plan_; }

  // Actors (sim/actors/).
  void enqueue_gpu(const Instance& in);
  void run_gpu(int worker, int gpu);
  void launch_copy(const Instance& in);
  void launch_host_exec(const Instance& in);
  void launch_barrier(const Instance& in);
  void run_flows(const Instance& in);
  void post(const Outgoing& out);
  void land(const Outgoing& o);
  void launch_collective(const Instance& in);
  void run_channel(const Instance& in, int channel);
  // Interference (sim/actors/interference.cpp): a worker's communication kernels starting
  // (+1) and ending (-1), its GPU kernels likewise.
  void comm_kernel(int worker, int delta);
  void kernel_running(int worker, int delta);

  const SyncPlan& plan_;
  SimProgress* progress_ = nullptr;
  RunOptions opt_;
  SimGridOptions sim_;
  const Platform& platform_;
  Fold fold_;
  ExecutorCore core_;  // release, dispatch, parts, what held each instance back
  RepeatDetector repeats_;
  Recorder recorder_;
  int gpus_ = 1;  // per node
  // Folded runs: bytes each node sent and received per iteration (index t * nodes + n).
  std::vector<double> fold_sent_, fold_received_;

  bool stopped_ = false;       // stop tokens sent to the drains

  // One compute stream per GPU, index worker * gpus_ + gpu.
  std::vector<std::deque<Instance>> gpu_queue_;
  std::vector<simgrid::s4u::ConditionVariablePtr> gpu_wake_;
  std::vector<simgrid::s4u::MutexPtr> gpu_mutex_;
  std::vector<InstanceRef> gpu_last_;  // per stream: the instance it ran last
  // Per simulated worker: communication kernels in flight, GPU kernels running.
  std::vector<int> comm_kernels_, kernels_running_;
  // Per node, with SimGrid's network solver (lmm_network.cpp): its inbox, which a drain
  // empties. None otherwise: an actor's stack each (16 KiB) was 200 MB at 4,096 nodes.
  std::vector<simgrid::s4u::Mailbox*> inbox_;
  std::size_t nodes_ = 0;                      // in the cluster: workers, and servers if dedicated
  std::unique_ptr<NicNetwork> network_;        // every flow between NICs (made by start())
  std::unique_ptr<Delays> delays_;             // per-message costs before flows leave (made by start())
  std::unique_ptr<NicNetwork> pcie_;           // the PCIe copies, with the star backend (else SimGrid Comms)
  std::vector<Outgoing> outgoing_;             // flows in the network, by slot (post())
  std::vector<std::uint32_t> free_outgoing_;
  // Collectives: per (iteration, task, stream, sender, receiver), the flows landed and
  // not yet taken by the receiver (NCCL's receive slots).
  std::map<std::tuple<int, int, int, int, int>, simgrid::s4u::SemaphorePtr> slots_;
};

}  // namespace possim::sim
