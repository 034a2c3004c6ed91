// SyncPlan: the task DAG a strategy writes and every engine executes.
//
// The plan is an SPMD template of ONE iteration. Every worker (the leader GPU of a
// node and its host) runs the `worker` tasks; every parameter-server shard runs the
// `shard` tasks of the tensors it holds. Engines unroll the template `iterations`
// times; a dependency's `lag` says how many iterations back it points (0: this one).
//
// Dependency semantics, for an instance (iteration t, worker w or shard s):
//   worker task on worker task ... the same worker's task, iteration t - lag.
//   shard task on worker task .... that task on EVERY worker (a shard aggregates all
//                                  workers' updates before it applies them: BSP at the
//                                  KV level, as Poseidon's servers count updates).
//   worker task on shard task .... that task on every shard holding part of the
//                                  dependent task's tensor (a pull waits for each
//                                  slice's apply; engines may start each slice's flow
//                                  as soon as its own shard is done).
//   barrier ...................... completes when its deps are done on EVERY worker.
// Deps pointing before iteration 0 are satisfied.
//
// Tasks carry amounts, not times, where the time depends on the machine an engine
// models: bytes for copies and flows, bytes per update for applies. Compute-like tasks
// (forward, backward, rebuild, quantize) carry seconds fixed by the strategy from the
// profile. `Rates` holds the conversion factors so that a plan is self-contained.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/cluster.hpp"
#include "model/network.hpp"
#include "model/scenario.hpp"

namespace possim {

enum class TaskKind : std::uint8_t {
  forward,    // GPU: f_l for the whole batch (duration_s)
  backward,   // GPU: b_l (duration_s)
  quantize,   // GPU: 1-bit quantization with residual (duration_s)
  rebuild,    // GPU: rebuild peers' gradients from sufficient factors and apply (duration_s)
  copy_d2h,   // PCIe device->host of `bytes`
  copy_h2d,   // PCIe host->device of `bytes`
  gather,     // intra-node: other GPUs' gradients onto the leader, `bytes` in total
  scatter,    // intra-node: fresh parameters from the leader to the other GPUs, `bytes` total
  push,       // network: worker -> shards (flow pattern)
  pull,       // network: shards -> worker
  broadcast,  // network: worker -> every other worker (SFB)
  allreduce,  // network: ring all-reduce among all workers
  apply,      // server CPU: apply the aggregated update of one tensor slice
  barrier,    // BSP: all workers' deps done
};
const char* to_string(TaskKind k);

enum class Scope : std::uint8_t { worker, shard };

// Where a network task's bytes go. Concrete flows come from expand_flows().
enum class FlowPattern : std::uint8_t {
  none,
  to_shards,    // each slice of `tensor`: worker -> the slice's shard, slice bytes x scale
  from_shards,  // each slice of `tensor`: shard -> worker
  to_peers,     // worker -> each other worker, `bytes` each
  ring,         // ring all-reduce of a `bytes` vector: 2(P-1) steps of bytes/P to the next worker
};

struct Dep {
  std::uint32_t task = 0;
  std::uint32_t lag = 0;
};

struct Task {
  TaskKind kind = TaskKind::forward;
  Scope scope = Scope::worker;
  int layer = -1;         // index into the network's layers, -1 if none
  double duration_s = 0;  // compute-like tasks; for apply, a fixed part added to the rate part
  double bytes = 0;       // copies, gather/scatter, to_peers/ring flows
  FlowPattern pattern = FlowPattern::none;
  int tensor = -1;        // index into SyncPlan::tensors (push, pull, apply)
  double scale = 1.0;     // bytes on the wire per byte of tensor (1-bit: ~1/32)
  std::vector<Dep> deps;
};

// One slice of a tensor on one shard: what hashing its KV pairs put there.
struct Slice {
  int shard = 0;
  double bytes = 0;
  int pairs = 0;  // KV pairs (messages) in the slice
};

// Where the server-side copy of one layer's parameters lives.
struct Tensor {
  int layer = -1;
  double bytes = 0;
  std::vector<Slice> slices;
};

// Conversion factors from amounts to seconds, copied from cluster and profile.
struct Rates {
  double nic_bytes_per_s = 0;   // line rate x TCP goodput
  double latency_s = 0;
  double per_message_s = 0;
  double pcie_bytes_per_s = 0;
  double pcie_latency_s = 0;
  double d2d_bytes_per_s = 0;
  double server_apply_bytes_per_s = 0;
};

// Per-layer decision, for explain and the result table.
struct LayerDecision {
  int layer = -1;
  std::string scheme;        // "ps", "sfb", "adam", "onebit", "allreduce", "local"
  double ps_params = 0;      // Table 1 cost on the busiest node, parameters per iteration
  double sfb_params = 0;     // SFB cost (FC only)
  double adam_params = 0;    // Adam cost (FC only)
  std::string why;
};

struct SyncPlan {
  std::string strategy;
  Cluster cluster;
  int batch_per_gpu = 0;
  int workers = 1;            // network participants: one per node
  int iterations = 1;
  Consistency consistency = Consistency::bsp;
  int staleness = 0;
  std::vector<Tensor> tensors;
  std::vector<Task> tasks;    // topological order
  std::vector<LayerDecision> decisions;
  Rates rates;
  double per_iteration_s = 0;  // fixed framework overhead on the GPU per iteration

  double images_per_iteration() const {
    return double(batch_per_gpu) * cluster.nodes * cluster.gpus_per_node;
  }
  // Node hosting worker w (workers are nodes 0..workers-1) and shard s.
  int worker_node(int w) const { return w; }
  int shard_node(int s) const { return cluster.shard_node(s); }
  int num_shards() const { return cluster.server_shards; }
};

// A concrete point-to-point flow of one network task instance.
struct Flow {
  int src_node = 0;
  int dst_node = 0;
  double bytes = 0;
  int messages = 1;
  int shard = -1;  // push/pull: the shard at one end
};

// The flows of task `t` on worker `w` (for ring: that worker's share of every step,
// i.e. 2(P-1) flows to the next worker). Flows with src == dst stay on the host.
std::vector<Flow> expand_flows(const SyncPlan& plan, const Task& t, int w);

// Check the template: deps point backwards (lag 0) or to any task (lag >= 1), indices
// valid, tensors valid. Throws std::logic_error; strategies' tests call it.
void validate(const SyncPlan& plan);

}  // namespace possim
