#include "model/strategies/plan_builder.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "model/plan/cost.hpp"
#include "model/plan/transport.hpp"
#include "model/input/error.hpp"
#include "model/input/limits.hpp"

namespace possim {

PlanBuilder::PlanBuilder(const PlanRequest& r, const std::string& strategy)
    : req_(r), precision_(r.profile->numerics.precision), gradient_(r.profile->numerics.gradient) {
  plan_.strategy = strategy;
  plan_.cluster = r.cluster;
  plan_.batch_per_gpu = r.batch_per_gpu;
  plan_.workers = r.cluster.nodes;
  plan_.iterations = r.iterations;
  plan_.consistency = r.options.consistency;
  plan_.staleness = r.options.staleness;
  const Profile& p = *r.profile;
  const TransportRates transport = transport_rates(p, r.cluster);
  plan_.rates.wire_efficiency = transport.wire_efficiency;
  plan_.rates.host_bytes_per_s = transport.host_bytes_per_s;
  plan_.rates.latency_s = r.cluster.latency_s;
  plan_.rates.per_message_s = p.per_message_s;
  // Host work in series with every copy between GPU and network: a runtime that stages each
  // byte through copies of its own (serialization into RPC buffers), and a PS client that
  // passes over the buffer once per shard. The copy path runs at the harmonic sum. Under
  // GPUDirect the PCIe copy is gone (the NIC reads GPU memory as it sends): what is left is
  // the stack's host work, if any.
  double host_s_per_byte = 0;
  if (p.runtime_copy_bytes_per_s > 0) host_s_per_byte += 1.0 / p.runtime_copy_bytes_per_s;
  if (p.client_pass_bytes_per_s > 0) host_s_per_byte += r.cluster.server_shards / p.client_pass_bytes_per_s;
  const double pcie_s_per_byte = transport.gpudirect() ? 0 : 1.0 / p.pcie_bytes_per_s;
  stage_on_host_ = pcie_s_per_byte + host_s_per_byte > 0;
  const double s_per_byte = stage_on_host_ ? pcie_s_per_byte + host_s_per_byte : 1.0 / p.pcie_bytes_per_s;
  plan_.rates.pcie_bytes_per_s = 1.0 / s_per_byte;
  plan_.rates.copy_host_share = stage_on_host_ ? 1 - pcie_s_per_byte / s_per_byte : 0;
  plan_.rates.pcie_latency_s = p.pcie_latency_s;
  plan_.rates.d2d_bytes_per_s = p.d2d_bytes_per_s;
  // A shard takes in each of the N workers' updates of a slice (N x bytes at the apply
  // rate) and runs the optimizer's update of it once (bytes at the update rate): the
  // engines charge N x bytes at one rate, the harmonic sum of the two per worker.
  plan_.rates.server_apply_bytes_per_s =
      p.server_update_bytes_per_s > 0
          ? 1.0 / (1.0 / p.server_apply_bytes_per_s +
                   1.0 / (double(plan_.workers) * p.server_update_bytes_per_s))
          : p.server_apply_bytes_per_s;
  // The server updates master weights: its rates are per master byte, and each wire byte of
  // a 16-bit gradient updates two of fp32 master weights.
  plan_.rates.server_apply_bytes_per_s *= gradient_value_bytes() / bytes_per_value(master_dtype(precision_));
  plan_.per_iteration_s = p.per_iteration_s;
  plan_.rates.collective_launch_s = p.collective_launch_s;
  plan_.rates.interference_kernel_slowdown = p.interference_kernel_slowdown;
  plan_.rates.interference_comm_slowdown = p.interference_comm_slowdown;
  plan_.model = r.net->name;
  // Every strategy adds at most a few tasks per layer (passes, copies, flows, applies):
  // reserved once, the tasks are not moved as the plan grows.
  plan_.layers.reserve(r.net->layers.size());
  plan_.tasks.reserve(6 * r.net->layers.size() + 16);
  for (const Layer& l : r.net->layers)
    plan_.layers.push_back(PlanLayer{l.name, to_string(l.kind), double(l.params())});
  times_ = p.layer_times(*r.net, r.batch_per_gpu);
}

double PlanBuilder::param_bytes(int layer) const {
  return double(net().layers.at(std::size_t(layer)).params()) * gradient_value_bytes();
}

std::vector<int> PlanBuilder::param_layers_top_down() const {
  std::vector<int> out;
  for (int l = int(net().layers.size()) - 1; l >= 0; --l)
    if (net().layers[std::size_t(l)].has_params()) out.push_back(l);
  return out;
}

TaskId PlanBuilder::add(Task t) {
  plan_.tasks.push_back(std::move(t));
  return TaskId(plan_.tasks.size() - 1);
}

void PlanBuilder::add_compute(const Deps& first_forward_deps) {
  const int n = int(net().layers.size());
  forward_.assign(std::size_t(n), 0);
  backward_.assign(std::size_t(n), 0);
  for (int l = 0; l < n; ++l) {
    Task t = gpu_task(Step::forward, l, 0, GpuSet::all);
    t.duration_s = times_[std::size_t(l)].forward_s + (l == 0 ? plan_.per_iteration_s : 0.0);
    if (l == 0) {
      t.deps = first_forward_deps;
    } else {
      t.deps.push_back(now(forward_[std::size_t(l - 1)]));
    }
    forward_[std::size_t(l)] = add(std::move(t));
  }
  for (int l = n - 1; l >= 0; --l) {
    Task t = gpu_task(Step::backward, l, 0, GpuSet::all);
    t.duration_s = times_[std::size_t(l)].backward_s;
    t.deps.push_back(now(l == n - 1 ? forward_.back() : backward_[std::size_t(l + 1)]));
    backward_[std::size_t(l)] = add(std::move(t));
  }
  // The GPU runs one iteration after the other: f_0(t) follows b_0(t-1).
  plan_.tasks[forward_[0]].deps.push_back(prev(backward_[0]));
}

void PlanBuilder::add_forward_dep(int layer, Dep d) {
  plan_.tasks.at(forward_.at(std::size_t(layer))).deps.push_back(d);
}

int PlanBuilder::tensor_hashed(int layer, double bytes) {
  Tensor tensor;
  tensor.layer = layer;
  tensor.bytes = bytes;
  const double kv = req_.options.kv_pair_bytes;
  // Pairs are dealt one by one: bound them before the loop (and before the cast).
  const double want = std::ceil(bytes / kv);
  if (!(want <= double(limits::kMaxKvPairs - next_pair_)))
    throw InputError("layer '" + net().layers.at(std::size_t(layer)).name + "' of " + net().name +
                     " would make the plan's KV pairs more than " + std::to_string(limits::kMaxKvPairs) +
                     ", the limit (expected a larger strategy_options.kv_pair_bytes or a smaller model)");
  const long long pairs = std::max(1LL, (long long)want);
  // Pair i goes to shard (first + i) mod shards, slice i mod shards of those it reaches,
  // each slice's bytes summed in the pairs' order; then listed by shard (those past the
  // last shard wrap to the front).
  const long long n = shards();
  const long long first = next_pair_ % n;
  const long long reached = std::min(pairs, n);
  std::vector<Slice>& slices = tensor.slices;
  slices.assign(std::size_t(reached), Slice{});
  for (long long i = 0; i < pairs; ++i) {
    Slice& s = slices[std::size_t(i % n)];
    s.bytes += (i + 1 < pairs) ? kv : bytes - kv * double(pairs - 1);
    s.pairs += 1;
  }
  next_pair_ += pairs;
  for (long long j = 0; j < reached; ++j) slices[std::size_t(j)].shard = int((first + j) % n);
  const long long wrapped = std::max(0LL, first + reached - n);
  std::rotate(slices.begin(), slices.end() - wrapped, slices.end());
  plan_.tensors.push_back(std::move(tensor));
  return int(plan_.tensors.size() - 1);
}

int PlanBuilder::tensor_per_variable(int layer) {
  const Layer& l = net().layers.at(std::size_t(layer));
  Tensor tensor;
  tensor.layer = layer;
  tensor.bytes = param_bytes(layer);
  for (double params : {double(l.weight_params), double(l.bias_params)}) {
    if (params <= 0) continue;
    const int shard = int(next_variable_++ % shards());
    tensor.slices.push_back(Slice{shard, params * gradient_value_bytes(), 1});
  }
  plan_.tensors.push_back(std::move(tensor));
  return int(plan_.tensors.size() - 1);
}

int PlanBuilder::tensor_on_shard(int layer, double bytes, int shard) {
  Tensor tensor;
  tensor.layer = layer;
  tensor.bytes = bytes;
  tensor.slices.push_back(Slice{shard, bytes, 1});
  plan_.tensors.push_back(std::move(tensor));
  return int(plan_.tensors.size() - 1);
}

Task PlanBuilder::gpu_task(Step step, int layer, double seconds, GpuSet gpus) {
  Task t;
  t.resource = Resource::gpu;
  t.gpus = gpus;
  t.step = step;
  t.layer = layer;
  t.duration_s = seconds;
  return t;
}

TaskId PlanBuilder::transfer(Resource resource, Step step, int layer, double bytes, Payload carries,
                             const Deps& deps, DType dtype) {
  Task t;
  t.resource = resource;
  t.step = step;
  t.carries = carries;
  t.dtype = dtype;
  t.layer = layer;
  t.bytes = bytes;
  t.deps = deps;
  return add(std::move(t));
}

Deps PlanBuilder::staging(Resource resource, Step step, int layer, double bytes, Payload carries, const Deps& deps,
                          DType dtype) {
  if (!stage_on_host_) return deps;
  return {now(transfer(resource, step, layer, bytes, carries, deps, dtype))};
}

// Several GPUs per node: gradients are gathered on the leader GPU first, and fresh
// parameters are copied back out to the others afterwards.
TaskId PlanBuilder::intra_node(Step step, int layer, double bytes, Payload carries, const Deps& deps) {
  const int others = req_.cluster.gpus_per_node - 1;
  if (others <= 0) return deps.empty() ? TaskId(-1) : deps.back().task;
  const DType dtype = carries == Payload::factors ? activation_dtype(precision_) : gradient_;
  return transfer(Resource::intra_node, step, layer, bytes * others, carries, deps, dtype);
}

TaskId PlanBuilder::ps_push_half(int layer, int tensor, const Deps& after, const Wire& wire) {
  const double bytes = param_bytes(layer);
  const DType dtype = wire.dtype.value_or(gradient_);
  Deps d = after;
  if (req_.cluster.gpus_per_node > 1) d = {now(intra_node(Step::gather, layer, bytes, Payload::gradient, d))};
  Task push = network_task(Step::push, layer, FlowPattern::to_shards, wire.push, dtype);
  push.tensor = tensor;
  push.scale = wire.scale;
  push.deps = staging(Resource::pcie_d2h, Step::copy_d2h, layer, bytes * wire.scale, wire.push, d, dtype);
  const TaskId p = add(std::move(push));
  return add(apply_task(layer, tensor, {now(p)}));
}

PlanBuilder::PullIds PlanBuilder::ps_pull_half(int layer, int tensor, const Deps& after, const Wire& wire) {
  const double bytes = param_bytes(layer);
  const DType dtype = wire.dtype.value_or(gradient_);
  Task pull = network_task(Step::pull, layer, FlowPattern::from_shards, wire.pull, dtype);
  pull.tensor = tensor;
  pull.scale = wire.scale;
  pull.deps = after;
  const TaskId p = add(std::move(pull));
  const Deps copied = staging(Resource::pcie_h2d, Step::copy_h2d, layer, bytes * wire.scale, wire.pull, {now(p)}, dtype);
  TaskId last = copied.front().task;
  if (req_.cluster.gpus_per_node > 1)
    last = intra_node(Step::scatter, layer, bytes, Payload::parameters, {now(last)});
  return {p, last};
}

TaskId PlanBuilder::ps_sync(int layer, int tensor, const Deps& after, const Wire& wire) {
  const TaskId apply = ps_push_half(layer, tensor, after, wire);
  return ps_pull_half(layer, tensor, {now(apply)}, wire).done;
}

std::pair<double, Deps> PlanBuilder::factors_to_host(int layer, const Deps& after) {
  const Layer& l = net().layers.at(std::size_t(layer));
  const double factor_bytes = double(node_batch()) * double(l.fc_m + l.fc_n) * activation_value_bytes();
  Deps d = after;
  if (req_.cluster.gpus_per_node > 1) {
    // Each GPU's factors (its own batch) go to the leader.
    const double per_gpu = factor_bytes / req_.cluster.gpus_per_node;
    d = {now(intra_node(Step::gather, layer, per_gpu, Payload::factors, d))};
  }
  return {factor_bytes, staging(Resource::pcie_d2h, Step::copy_d2h, layer, factor_bytes, Payload::factors, d,
                                activation_dtype(precision_))};
}

TaskId PlanBuilder::sfb_sync(int layer, const Deps& after) {
  const Layer& l = net().layers.at(std::size_t(layer));
  const double k = node_batch();
  const auto [factor_bytes, staged] = factors_to_host(layer, after);
  Task bcast = network_task(Step::broadcast, layer, FlowPattern::to_peers, Payload::factors, activation_dtype(precision_));
  bcast.bytes = factor_bytes;
  bcast.deps = staged;
  const TaskId b = add(std::move(bcast));
  // A worker rebuilds from every peer's factors: they are in once every worker's
  // broadcast has landed (a cluster task: done when its deps are, on every worker).
  Task in;
  in.resource = Resource::none;
  in.scope = Scope::cluster;
  in.step = Step::factors_in;
  in.layer = layer;
  in.deps = {now(b)};
  const TaskId all = add(std::move(in));
  const Deps copied = staging(Resource::pcie_h2d, Step::copy_h2d, layer, factor_bytes * (workers() - 1),
                             Payload::factors, {now(all)}, activation_dtype(precision_));
  // One GEMM [M x K'] x [K' x N] rebuilds every gradient the leader did not compute: each
  // peer node's (its whole batch K) and, with several GPUs, its own node's other GPUs'
  // (gathered as factors above), K' = (P1 - 1) K + (G - 1) B.
  const double rebuilt_k = k * (workers() - 1) + double(req_.batch_per_gpu) * (req_.cluster.gpus_per_node - 1);
  Task rebuild = gpu_task(Step::rebuild, layer,
                          2.0 * rebuilt_k * double(l.fc_m) * double(l.fc_n) /
                              req_.profile->rebuild_flops_at_precision());
  rebuild.deps = copied;
  TaskId last = add(std::move(rebuild));
  if (req_.cluster.gpus_per_node > 1)
    last = intra_node(Step::scatter, layer, param_bytes(layer), Payload::parameters, {now(last)});
  return last;
}

TaskId PlanBuilder::adam_sync(int layer, int owner_shard, const Deps& after) {
  const auto [factor_bytes, staged] = factors_to_host(layer, after);
  Task push = network_task(Step::push, layer, FlowPattern::to_shards, Payload::factors, activation_dtype(precision_));
  push.tensor = tensor_on_shard(layer, factor_bytes, owner_shard);
  push.deps = staged;
  const TaskId p = add(std::move(push));
  // The owner rebuilds each worker's gradient and applies it to the full matrix.
  const int params = tensor_on_shard(layer, param_bytes(layer), owner_shard);
  const TaskId a = add(apply_task(layer, params, {now(p)}));
  return ps_pull_half(layer, params, {now(a)}).done;
}

std::vector<std::vector<int>> PlanBuilder::gradient_buckets() const {
  std::vector<std::vector<int>> out;
  double filled = 0;
  for (int l : param_layers_top_down()) {
    if (out.empty() || filled >= req_.options.bucket_bytes) {
      out.emplace_back();
      filled = 0;
    }
    out.back().push_back(l);
    filled += param_bytes(l);
  }
  return out;
}

TaskId PlanBuilder::allreduce_bucket(const std::vector<int>& layers, const AllReduceHow& how) {
  if (layers.size() == 1) return allreduce_sync(layers.front(), {now(backward(layers.front()))}, how);
  double bytes = 0;
  for (int l : layers) bytes += param_bytes(l);
  return allreduce_bytes(layers.back(), bytes, {now(backward(layers.back()))}, how);
}

std::vector<std::pair<int, TaskId>> PlanBuilder::allreduce_buckets(const AllReduceHow& how, const std::string& scheme,
                                                                   const std::string& why) {
  std::vector<std::pair<int, TaskId>> synced;
  const auto buckets = gradient_buckets();
  // At one node the collective has no peer: only the node's own GPUs sync (explain's why).
  std::string said = why;
  if (workers() < 2) {
    const int gpus = req_.cluster.gpus_per_node;
    said = "one node: no peer node to reduce with (0 between nodes)";
    if (gpus > 1)
      said += "; its " + std::to_string(gpus) + " GPUs still sync " +
              (how.inside == AllReduceHow::Inside::ring ? "by reduce-scatter and all-gather inside the node"
                                                        : "through the leader");
  }
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const TaskId done = allreduce_bucket(buckets[i], how);
    std::string in_bucket;
    if (req_.options.bucket_bytes > 0) {
      double bytes = 0;
      for (int l : buckets[i]) bytes += param_bytes(l);
      char buf[96];
      std::snprintf(buf, sizeof buf, "; bucket %zu of %zu (%zu layers, %.3g MB)", i + 1, buckets.size(),
                    buckets[i].size(), bytes / 1e6);
      in_bucket = buf;
    }
    for (int l : buckets[i]) {
      synced.emplace_back(l, done);
      decide(costs(l, scheme, said + in_bucket));
    }
  }
  return synced;
}

TaskId PlanBuilder::allreduce_sync(int layer, const Deps& after, const AllReduceHow& how) {
  return allreduce_bytes(layer, param_bytes(layer), after, how);
}

TaskId PlanBuilder::allreduce_bytes(int layer, double bytes, const Deps& after, const AllReduceHow& how) {
  const int gpus = req_.cluster.gpus_per_node;
  // Inside the node, before and after the collective across nodes: gather every GPU's
  // gradient on the leader (the other GPUs' bytes, in series on the leader's path), or a
  // ring reduce-scatter whose steps move on every GPU's link at once ((G-1)/G of the
  // tensor each), with the matching all-gather after.
  const bool ring_inside = how.inside == AllReduceHow::Inside::ring;
  // After a ring inside the node each GPU holds 1/G of the sum and all-reduces it across
  // nodes on its own rail: the node's bytes spread over min(NICs, GPUs) of them.
  if (ring_inside) plan_.rails = std::max(1, std::min(req_.cluster.nics_per_node, gpus));
  const double inside_bytes = ring_inside ? bytes / gpus : bytes;  // per other GPU (intra_node)
  Deps d = after;
  if (gpus > 1)
    d = {now(intra_node(ring_inside ? Step::reduce_scatter : Step::gather, layer, inside_bytes, Payload::gradient, d))};
  Task across = network_task(Step::allreduce, layer, FlowPattern::collective, Payload::gradient, gradient_);
  across.collective = how.kind;
  across.chunks = how.chunks(bytes);
  across.bytes = bytes;
  across.deps = d;
  TaskId last = add(std::move(across));
  if (gpus > 1)
    last = intra_node(ring_inside ? Step::all_gather : Step::scatter, layer, inside_bytes, Payload::gradient, {now(last)});
  return last;
}

TaskId PlanBuilder::barrier(const Deps& deps) {
  Task t;
  t.resource = Resource::none;
  t.scope = Scope::cluster;
  t.step = Step::barrier;
  t.deps = deps;
  t.duration_s = req_.profile->step_sync_s;  // the stack's round, if any
  return add(std::move(t));
}

void PlanBuilder::local_update(const Deps& deps) {
  const double rate = req_.profile->optimizer_bytes_per_s;
  if (rate <= 0) return;
  double params = 0;
  for (const Layer& l : net().layers) params += double(l.params());
  Task t = gpu_task(Step::optimizer, -1, params * kOptimizerBytesPerParam / rate, GpuSet::all);
  t.deps = deps;
  add_forward_dep(0, prev(add(std::move(t))));
}

// BSP: the next step starts after the step's barrier, which carries the stack's step round.
// SSP: each layer waits on its own sync staleness + 1 steps back, and no worker waits for the
// round (its clock is sent asynchronously), so it costs nothing there.
void PlanBuilder::close_iteration(const std::vector<std::pair<int, TaskId>>& synced, Update update) {
  if (plan_.consistency == Consistency::bsp) {
    Deps all;
    for (const auto& [layer, done] : synced)
      if (all.empty() || all.back().task != done) all.push_back(now(done));  // a bucket's layers share one
    const TaskId b = barrier(all);
    add_forward_dep(0, prev(b));
    if (update == Update::on_workers) local_update({now(b)});
    return;
  }
  for (const auto& [layer, done] : synced)
    add_forward_dep(layer, prev(done, std::uint32_t(plan_.staleness + 1)));
}

LayerDecision PlanBuilder::costs(int layer, std::string scheme, std::string why) const {
  const Layer& l = net().layers.at(std::size_t(layer));
  LayerDecision d;
  d.layer = layer;
  d.scheme = std::move(scheme);
  d.why = std::move(why);
  const double p1 = workers(), p2 = shards(), k = node_batch();
  const bool colocated = req_.cluster.placement == ServerPlacement::colocated;
  if (l.kind == LayerKind::fc) {
    const double m = double(l.fc_m), n = double(l.fc_n);
    d.ps_params = colocated ? table1::ps_colocated(m, n, p1, p2) : table1::ps_worker(m, n);
    d.sfb_params = table1::sfb_worker(m, n, p1, k);
    d.adam_params = colocated ? table1::adam_colocated(m, n, p1, k) : table1::adam_worker(m, n, k);
  } else {
    // A conv/BN tensor of P parameters moves like an M x N matrix with M N = P.
    const double params = double(l.params());
    d.ps_params = colocated ? table1::ps_colocated(params, 1, p1, p2) : table1::ps_worker(params, 1);
  }
  return d;
}

Task PlanBuilder::network_task(Step step, int layer, FlowPattern pattern, Payload carries, DType dtype) {
  Task t;
  t.resource = Resource::network;
  t.step = step;
  t.carries = carries;
  t.dtype = dtype;
  t.layer = layer;
  t.pattern = pattern;
  return t;
}

// Each slice's apply also pays the server's fixed work for every worker's request.
Task PlanBuilder::apply_task(int layer, int tensor, const Deps& deps) const {
  Task t;
  t.resource = Resource::server_cpu;
  t.scope = Scope::shard;
  t.step = Step::apply;
  t.layer = layer;
  t.tensor = tensor;
  t.duration_s = req_.profile->server_per_peer_s * workers();
  t.deps = deps;
  return t;
}

SyncPlan PlanBuilder::finish() {
  plan_.stragglers = make_stragglers(req_.options.stragglers, std::max(1, plan_.iterations), plan_.workers,
                                     req_.seed);
  validate(plan_);
  return std::move(plan_);
}

}  // namespace possim
