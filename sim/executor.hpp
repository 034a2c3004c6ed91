// Executes a SyncPlan on a SimGrid platform. Every task instance (iteration, task,
// worker | slice | the one barrier) waits for exactly the plan's dependencies, then
// becomes an Exec (GPU, server CPU, intra-node copy), a Comm (PCIe copy, network flow)
// or a barrier release. WFBP overlap, incast and hot spots arise from these events and
// SimGrid's bandwidth sharing, never from a fraction typed in.
//
// Actors: one actor per GPU runs its kernels in order of readiness (one compute
// stream; a node's other GPUs run forward and backward alongside the leader); short-lived helper actors run each copy, apply and flow group; one drain
// actor per host receives the data sent to it. A shard applies a slice once every
// (not dropped) worker's flow to it has landed: Poseidon's per-KV update counting.
//
// Repeating iterations: when iteration t began only after iteration t-1 had ended, took
// the same offsets for every task instance and flow as t-1, no later iteration has begun
// before t ended, and no input varies by iteration (stragglers), then every later
// iteration is the same, shifted in time: each starts from the same idle state with the
// same work. The executor then stops launching and reports them from iteration t
// (RunOptions::reuse_repeating_iterations; result().simulated_iterations says so).
#pragma once
#include <deque>
#include <memory>
#include <vector>

#include <simgrid/s4u.hpp>

#include "model/engine.hpp"
#include "model/stragglers.hpp"
#include "sim/platform.hpp"

namespace possim::sim {

// A flow between two hosts of the platform, with what the statistics need.
struct HostFlow {
  simgrid::s4u::Host* src = nullptr;
  simgrid::s4u::Mailbox* dst = nullptr;
  double bytes = 0;
  int messages = 0;
  int shard = -1;
  int slice = -1;  // push/pull: index of the slice it carries in the task's tensor
  int src_node = -1, dst_node = -1;  // NIC traffic only; -1 for PCIe copies
  // Flows still in flight of the slice this flow carries (several with flow_per_kv_pair):
  // the shard counts the slice as delivered when the last one lands.
  std::shared_ptr<int> slice_left;
};

class Executor {
 public:
  Executor(const SyncPlan& plan, const Network& net, const RunOptions& opt, const Platform& platform);
  // Spawns the actors; call before Engine::run().
  void start();
  // After Engine::run(): everything an engine reports. Throws if some task instance
  // never ran (a plan whose dependencies cannot all be met).
  Result result() const;

 private:
  struct Instance {
    int t;
    std::uint32_t task;
    int who;  // worker, slice index (apply) or 0 (barrier)
  };
  std::size_t index(int t, std::uint32_t task, int who) const {
    return std::size_t(t) * stride_ + offset_[task] + std::size_t(who);
  }
  int instances_of(std::uint32_t task) const;
  bool worker_scoped(std::uint32_t task) const;
  bool is_barrier(std::uint32_t task) const;
  bool dropped(int t, int w) const { return stragglers_.dropped[std::size_t(t)][std::size_t(w)] != 0; }

  void count_pending();
  void release(int t, std::uint32_t task, int who);  // one dependency of an instance met
  void launch(const Instance& in);
  void complete(const Instance& in);
  void end_iteration(int t);     // the last instance of iteration t has completed
  bool repeats(int t) const;     // iteration t is iteration t-1 shifted (see above)
  void stop_drains();
  int source(int t) const { return steady_ >= 0 && t > steady_ ? steady_ : t; }
  double shift(int t) const { return double(t - source(t)) * period_; }
  // One worker's flow carrying slice `slice` (on `shard`) of the push's tensor landed.
  void delivered(const Instance& push, int shard, int slice);

  void run_gpu(int worker, int gpu);  // gpu 0: the leader
  struct Outgoing {
    HostFlow flow;
    Instance in;
    std::size_t id;
    bool notify_shards;
    double t0;
  };
  void run_flows(const Instance& in, std::vector<Flow> flows, bool notify_shards);
  void post(const Outgoing& out);
  void send_group(std::vector<Outgoing> group);
  void run_ring(const Instance& in);
  void record(const Instance& in, const std::string& track, double start);
  void record_flow(const Outgoing& o, double start);
  void flow_landed(int t, int src_node, int dst_node, double bytes);
  void count_link(int t, std::size_t link, double bytes) { link_bytes_[std::size_t(t) * links_ + link] += bytes; }
  std::size_t nic_tx(int node) const { return 2 * std::size_t(node); }
  std::size_t pcie_d2h(int w) const { return 2 * (platform_.nic.size() + std::size_t(w)); }

  const SyncPlan& plan_;
  const Network& net_;
  RunOptions opt_;
  const Platform& platform_;
  StragglerTable stragglers_;
  int k_ = 1;
  int gpus_ = 1;  // per node

  std::vector<std::size_t> offset_;
  std::size_t stride_ = 0;
  std::vector<std::vector<Dep>> dependents_;
  // shard_slice_[task][shard] = slice index of that shard in the task's tensor, or -1
  // (the last one, when a tensor has several slices on one shard: TF stock's variables).
  std::vector<std::vector<int>> shard_slice_;
  std::vector<int> pending_;
  std::vector<int> flows_left_;  // per instance: flows in flight, or GPUs still computing it
  std::vector<double> started_, finished_;
  std::vector<char> done_;  // each instance completes exactly once

  // One compute stream per GPU, index worker * gpus_ + gpu.
  std::vector<std::deque<Instance>> gpu_queue_;
  std::vector<simgrid::s4u::ConditionVariablePtr> gpu_wake_;
  std::vector<simgrid::s4u::MutexPtr> gpu_mutex_;
  std::vector<simgrid::s4u::Mailbox*> inbox_;  // per host index: data addressed to it
  std::vector<simgrid::s4u::Host*> drain_host_;
  std::vector<std::vector<Outgoing>> outbox_;  // per node: flows posted, not yet sent
  std::vector<char> flush_scheduled_;
  std::size_t remaining_ = 0;  // task instances not yet complete
  std::size_t in_flight_ = 0;  // launched, not yet complete
  bool stopped_ = false;       // stop tokens sent to the drains

  // Repeating iterations.
  bool inputs_repeat_ = false;            // no straggler input varies by iteration
  std::vector<std::size_t> iter_left_;    // per iteration: instances not yet complete
  std::vector<double> iter_end_;          // per iteration: when its last instance completed
  std::vector<double> first_launch_;      // per iteration: earliest launch
  std::vector<double> flow_end_sum_;      // per iteration: sum of flow completion times
  std::vector<std::size_t> rings_;        // per iteration: ring all-reduce instances launched
  int steady_ = -1;                       // iterations after this one repeat it
  double period_ = 0;                     // their spacing

  // Outputs, per iteration (index t * nodes + n, t * links_ + link).
  std::vector<double> node_sent_, node_received_;
  std::size_t links_ = 0;           // NIC tx, rx per node, then PCIe d2h, h2d per worker
  std::vector<double> link_bytes_;  // what each flow and copy put on each link
  std::vector<TimelineEvent> timeline_;
  std::vector<double> gpu_busy_;
  std::vector<std::size_t> flows_;  // network flows completed
};

}  // namespace possim::sim
