// The building blocks every strategy writes its plan with: the compute chain, tensor
// placement on shards, and one function per synchronization scheme.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/strategies/strategy.hpp"

namespace possim {

using TaskId = std::uint32_t;
using Deps = DepList;  // inline up to three: the builder passes one or two along at each step

inline Dep now(TaskId t) { return Dep{t, 0}; }
inline Dep prev(TaskId t, std::uint32_t lag = 1) { return Dep{t, lag}; }

// How an all-reduce runs: the collective across nodes, and inside a node of several GPUs
// either a gather on the leader (and scatter back) or a ring reduce-scatter (and all-gather).
struct AllReduceHow {
  enum class Inside { gather, ring };
  CollectiveKind kind = CollectiveKind::ring;
  Inside inside = Inside::gather;
  // Pipeline chunks for a tensor of `bytes` (1: not pipelined).
  std::function<int(double bytes)> chunks = [](double) { return 1; };
};

// How a PS exchange puts a layer on the wire: gradients up and parameters down in the
// scenario's gradient type, or (1-bit SGD) quantized values both ways at `scale` bytes per
// gradient byte.
struct Wire {
  double scale = 1.0;
  std::optional<DType> dtype;  // none: the scenario's gradient type
  Payload push = Payload::gradient;
  Payload pull = Payload::parameters;
  static Wire quantized(double scale) { return {scale, DType::bit1, Payload::quantized, Payload::quantized}; }
};

class PlanBuilder {
 public:
  PlanBuilder(const PlanRequest& r, const std::string& strategy);

  const Network& net() const { return *req_.net; }
  const SyncPlan& plan() const { return plan_; }
  int workers() const { return plan_.workers; }
  int shards() const { return plan_.num_shards(); }
  // Samples whose factors a node contributes (all its GPUs).
  int node_batch() const { return req_.batch_per_gpu * req_.cluster.gpus_per_node; }
  // A layer's gradient (or its parameters) in the scenario's gradient type.
  double param_bytes(int layer) const;
  // Bytes of one gradient value, and of one activation (sufficient factors), as the
  // scenario's numerics store them.
  double gradient_value_bytes() const { return bytes_per_value(gradient_); }
  double activation_value_bytes() const { return bytes_per_value(activation_dtype(precision_)); }
  // Layers that own parameters, from the top (last) layer down: the order WFBP syncs them.
  std::vector<int> param_layers_top_down() const;

  // f_0..f_{L-1} then b_{L-1}..b_0, each after the previous. f_0 also waits for
  // `first_forward_deps` (e.g. the previous iteration's barrier).
  void add_compute(const Deps& first_forward_deps = {});
  // Deps appended to f_l after add_compute (e.g. SSP's fresh-parameter read).
  void add_forward_dep(int layer, Dep d);
  TaskId forward(int layer) const { return forward_.at(std::size_t(layer)); }
  TaskId backward(int layer) const { return backward_.at(std::size_t(layer)); }
  TaskId last_backward() const { return backward_.front(); }

  // Tensor placement. Poseidon: KV pairs of kv_pair_bytes, dealt round-robin over all
  // shards with one counter for the whole model, so every shard gets an even share.
  int tensor_hashed(int layer, double bytes);
  // TF stock: each variable (weights, then biases) whole on one shard, round-robin.
  int tensor_per_variable(int layer);
  // Adam: one tensor whole on one shard.
  int tensor_on_shard(int layer, double bytes, int shard);

  // Schemes. Each returns the task after which the layer's fresh parameters are on
  // the GPU; `after` is what the sync waits for (its gradient being ready).
  TaskId ps_sync(int layer, int tensor, const Deps& after, const Wire& wire = {});
  TaskId sfb_sync(int layer, const Deps& after);
  TaskId adam_sync(int layer, int owner_shard, const Deps& after);
  // An all-reduce of the layer's gradient: `how` picks the collective across nodes and
  // what happens inside a node of several GPUs.
  TaskId allreduce_sync(int layer, const Deps& after, const AllReduceHow& how = AllReduceHow{});
  // The layers that own parameters, top down, fused into gradient buckets (PyTorch DDP's
  // buckets, Horovod's Tensor Fusion): a bucket closes once its gradients reach
  // strategy_options.bucket_bytes, the last one at the bottom layer. 0: a bucket per layer.
  std::vector<std::vector<int>> gradient_buckets() const;
  // One all-reduce of a bucket's gradients (`layers` top down), started once the bucket is
  // full: after the backward pass of its last (lowest) layer.
  TaskId allreduce_bucket(const std::vector<int>& layers, const AllReduceHow& how);
  // Every bucket all-reduced with `how`; each layer's decision says `scheme` and `why`.
  std::vector<std::pair<int, TaskId>> allreduce_buckets(const AllReduceHow& how, const std::string& scheme,
                                                        const std::string& why);
  // PS halves, for strategies that split them in time (TF stock fetches at iteration start).
  TaskId ps_push_half(int layer, int tensor, const Deps& after, const Wire& wire = {});
  struct PullIds {
    TaskId pull;  // the network task
    TaskId done;  // fresh parameters on every GPU of the node
  };
  PullIds ps_pull_half(int layer, int tensor, const Deps& after, const Wire& wire = {});
  // Add a dependency to a task already written (for deps on tasks written later, lag >= 1).
  void add_dep(TaskId task, Dep d) { plan_.tasks.at(task).deps.push_back(d); }

  // The step's barrier: done when `deps` are done on every worker, plus the stack's step
  // synchronisation round (Profile::step_sync_s), if any.
  TaskId barrier(const Deps& deps);
  // Close the iteration under the scenario's consistency model. BSP: a barrier on every
  // layer's sync, and f_0 of the next iteration waits for it. SSP with staleness s:
  // f_l(t) waits only for layer l's sync of iteration t - s - 1.
  // Update::on_workers (the all-reduce family): each worker applies the reduced gradients
  // itself, after the barrier: local_update().
  enum class Update { on_servers, on_workers };
  void close_iteration(const std::vector<std::pair<int, TaskId>>& synced, Update update = Update::on_servers);
  // The worker's optimizer step over every parameter, after `deps`, where the profile has a
  // rate for it (Profile::optimizer_bytes_per_s; else the step is in the layer times): a GPU
  // task, and the next iteration's first forward waits for it. kOptimizerBytesPerParam per
  // parameter: momentum SGD on fp32 master weights reads the weight, its gradient and
  // momentum and writes the weight and momentum (5 x 4 bytes; PyTorch's SGD and Caffe's
  // solver alike).
  static constexpr double kOptimizerBytesPerParam = 20;
  void local_update(const Deps& deps);
  TaskId add(Task t);
  void decide(LayerDecision d) { plan_.decisions.push_back(std::move(d)); }
  // Table 1 costs of a layer for this cluster, filled into a decision.
  LayerDecision costs(int layer, std::string scheme, std::string why) const;

  SyncPlan finish();

  // Task makers: one per resource a strategy step occupies. The label is the step's name.
  static Task gpu_task(Step step, int layer, double seconds, GpuSet gpus = GpuSet::leader);
  static Task network_task(Step step, int layer, FlowPattern pattern, Payload carries, DType dtype = DType::fp32);
  // A shard's apply of every worker's update of each slice of `tensor`.
  Task apply_task(int layer, int tensor, const Deps& deps) const;
  TaskId transfer(Resource resource, Step step, int layer, double bytes, Payload carries, const Deps& deps,
                  DType dtype);
  // A copy staging network bytes between GPU and host: what comes after it depends on the
  // returned deps. None under GPUDirect RDMA, unless the stack passes over the bytes itself.
  Deps staging(Resource resource, Step step, int layer, double bytes, Payload carries, const Deps& deps,
               DType dtype);
  // Several GPUs per node: `bytes` from (or to) each of the leader's peers over the
  // intra-node path; returns the last of `deps` on one GPU.
  TaskId intra_node(Step step, int layer, double bytes, Payload carries, const Deps& deps);

 private:
  // A node's sufficient factors of an FC layer (K x (M + N) floats, K = all its GPUs'
  // samples), gathered on the leader and staged on the host: (bytes, what follows waits for).
  std::pair<double, Deps> factors_to_host(int layer, const Deps& after);
  // An all-reduce of `bytes` of gradients, named after `layer`.
  TaskId allreduce_bytes(int layer, double bytes, const Deps& after, const AllReduceHow& how);

  PlanRequest req_;
  Precision precision_;  // the profile's numerics
  DType gradient_;
  SyncPlan plan_;
  bool stage_on_host_ = true;  // network bytes pass through host memory (model/plan/transport.hpp)
  std::vector<LayerTime> times_;
  std::vector<TaskId> forward_, backward_;
  long long next_pair_ = 0;      // global KV-pair counter for even hashing (and the plan's
                                 // pair count, at most limits::kMaxKvPairs)
  long long next_variable_ = 0;  // TF round-robin counter
};

}  // namespace possim
