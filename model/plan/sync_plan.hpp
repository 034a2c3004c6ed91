// SyncPlan: the task DAG a strategy writes and every engine executes.
//
// The plan is an SPMD template of ONE iteration. Every worker (the leader GPU of a
// node and its host) runs the worker-scope tasks; every parameter-server shard runs the
// shard-scope tasks of the tensors it holds; cluster-scope tasks (barriers) run once.
// A task names the resource it occupies and its amount in that resource's unit; engines
// execute tasks by resource and never by which strategy step they are. Engines unroll the
// template `iterations` times (model/instance_graph.hpp); a dependency's `lag` says how
// many iterations back it points (0: this one).
//
// Dependency semantics, for an instance (iteration t, worker w or slice s):
//   worker task on worker task ... the same worker's task, iteration t - lag.
//   shard task on worker task .... that task on EVERY worker (a shard aggregates all
//                                  workers' updates before it applies them: BSP at the
//                                  KV level, as Poseidon's servers count updates).
//   worker task on shard task .... that task on every shard holding part of the
//                                  dependent task's tensor (a pull waits for each
//                                  slice's apply; engines may start each slice's flow
//                                  as soon as its own shard is done).
//   cluster task ................. completes when its deps are done on EVERY worker.
// Deps pointing before iteration 0 are satisfied. A worker dropped as a straggler in an
// iteration is not waited for by shard and cluster tasks.
//
// Tasks carry amounts, not times, where the time depends on the machine an engine
// models: bytes for copies and flows, bytes per update for applies. GPU tasks carry
// seconds fixed by the strategy from the profile. `Rates` holds the conversion factors,
// and `layers` and `stragglers` the rest, so that a plan is self-contained.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/input/cluster.hpp"
#include "model/input/consistency.hpp"
#include "model/plan/dep_list.hpp"
#include "model/plan/resource.hpp"
#include "model/plan/step.hpp"
#include "model/plan/stragglers.hpp"

namespace possim {

// GPU tasks: every GPU of a node runs its share of the batch (forward, backward), or the
// leader GPU alone (steps on the node's gathered gradient).
enum class GpuSet : std::uint8_t { leader, all };

// Where a network task's bytes go. Concrete flows come from expand_flows().
enum class FlowPattern : std::uint8_t {
  none,
  to_shards,    // each slice of `tensor`: worker -> the slice's shard, slice bytes x scale
  from_shards,  // each slice of `tensor`: shard -> worker
  to_peers,     // worker -> each other worker, `bytes` each
  collective,   // `collective` over all workers on a `bytes` vector (model/collective.hpp)
};

// Collectives are written once, as rounds of flows (model/collective.cpp).
enum class CollectiveKind : std::uint8_t {
  ring,         // ring all-reduce: 2(P-1) rounds of bytes/P to the next worker
  double_tree,  // two binary trees, each reducing then broadcasting half, pipelined
};
const char* to_string(CollectiveKind k);

struct Task {
  Resource resource = Resource::gpu;
  Scope scope = Scope::worker;
  GpuSet gpus = GpuSet::leader;
  Step step = Step::forward;       // what the task is (model/plan/step.hpp)
  Payload carries = Payload::none; // copies, intra-node and network tasks: what they move
  DType dtype = DType::fp32;       // and its element type
  // A display label given by hand (a plan file's), for traces and tables only: nothing branches
  // on it. Empty, the usual case: the step's name (display_label()), with no string per task.
  std::string label;
  int layer = -1;         // index into the network's layers, -1 if none
  double duration_s = 0;  // gpu: its time; server_cpu: a fixed part added to the rate part
  double bytes = 0;       // copies, intra-node, to_peers and collective flows
  FlowPattern pattern = FlowPattern::none;
  CollectiveKind collective = CollectiveKind::ring;
  int chunks = 1;         // collective: pipeline chunks per channel
  int tensor = -1;        // index into SyncPlan::tensors (to/from shards, server_cpu)
  double scale = 1.0;     // bytes on the wire per byte of tensor (1-bit: ~1/32)
  DepList deps;

  // The layer's own forward or backward pass (not part of its synchronization).
  bool pass() const { return is_pass(step); }
  // What traces, tables and messages call it ("backward", "push").
  const char* display_label() const { return label.empty() ? to_string(step) : label.c_str(); }
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
  // The NIC's line rate is the cluster's (SyncPlan::nic_bytes_per_s()); of it, the
  // transport carries this share as payload, up to the host's ceiling per direction (0:
  // none). Written by model/plan/transport.hpp from the cluster's transport.
  double wire_efficiency = 1;
  double host_bytes_per_s = 0;
  double latency_s = 0;
  double per_message_s = 0;
  double pcie_bytes_per_s = 0;
  double pcie_latency_s = 0;
  // Of a GPU-host copy's per-byte time, the share that is the stack's host work on the
  // bytes (runtime staging, PS client passes) rather than PCIe: for the time breakdown.
  double copy_host_share = 0;
  double d2d_bytes_per_s = 0;
  double server_apply_bytes_per_s = 0;
  // Fixed seconds before each worker's part of a collective starts: the framework's
  // coordination of the collective (Horovod's negotiation of which tensors are ready) and
  // the collective kernel's launch. Paid once per collective, so buckets amortize it.
  double collective_launch_s = 0;
  // Compute/communication interference on a worker's GPUs (a factor of time, 1: none).
  // While a communication kernel of the worker is in flight (a collective's rounds after
  // its launch, a transfer on the GPU-to-GPU path), its GPU kernels progress at
  // 1/interference_kernel_slowdown of their rate; while one of its kernels runs, its
  // GPU-to-GPU transfers progress at 1/interference_comm_slowdown. A collective's
  // inter-node rounds are not slowed: the NIC, not the reduce kernel, bounds them.
  double interference_kernel_slowdown = 1;
  double interference_comm_slowdown = 1;
  bool interferes() const { return interference_kernel_slowdown != 1 || interference_comm_slowdown != 1; }
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

// What engines report about a layer: its name, kind and parameters.
struct PlanLayer {
  std::string name;
  std::string kind;
  double params = 0;
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
  std::string model;           // the network's name
  std::vector<PlanLayer> layers;
  // Per-iteration, per-worker compute slowdowns and drops, drawn from the scenario's seed
  // when the plan is written: every engine runs the same disturbances.
  StragglerTable stragglers;
  // Network bytes and the NIC rate are 1/network_scale of the scenario's
  // (model/plan/network_scale.hpp); 1 for a plan as a strategy writes it.
  double network_scale = 1;
  // NICs of a node its traffic spreads over (Cluster::nics_per_node, rail-aligned): 1 where
  // every byte leaves from a leader GPU; hier_allreduce's GPUs each send their slice on
  // their own rail. Every network task of a plan uses the same rails.
  int rails = 1;

  // A node's network rate at the plan's scale: the line rate of its rails (the cluster's
  // NIC, its one home, x rails) over network_scale, and of it the payload the transport
  // leaves (model/plan/transport.hpp). Engines model a node's rails as one link.
  double line_rate_bytes_per_s() const { return cluster.nic_bytes_per_s() * rails / network_scale; }
  double line_rate_gbps() const { return cluster.nic_gbps * rails / network_scale; }
  double nic_bytes_per_s() const;

  // Stragglers that no engine can tell from none: every factor 1, nobody dropped.
  bool undisturbed() const;
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

// The flows of task `t` on worker `w` (for a collective: that worker's sends of every
// round, in order). Flows with src == dst stay on the host.
std::vector<Flow> expand_flows(const SyncPlan& plan, const Task& t, int w);

// Check the template: deps point backwards (lag 0) or to any task (lag >= 1), indices
// valid, tensors valid. Throws std::logic_error; strategies' tests call it.
void validate(const SyncPlan& plan);

}  // namespace possim
