#include "sim/executor.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

#include <simgrid/plugins/load.h>

namespace sg4 = simgrid::s4u;

namespace possim::sim {

namespace {

int kPayload = 0;  // comms carry no data; their size is simulated
int kStop = 0;     // tells a drain actor that nothing more will arrive
constexpr std::size_t kCommsPerHelper = 64;  // many pending comms per actor scale badly

// What a comm of `bytes` puts on its links: SimGrid moves whole bytes, at least one.
std::uint64_t wire_bytes(double bytes) { return std::uint64_t(std::max(1.0, bytes)); }

bool gpu_kind(TaskKind k) {
  return k == TaskKind::forward || k == TaskKind::backward || k == TaskKind::quantize ||
         k == TaskKind::rebuild;
}

}  // namespace

Executor::Executor(const SyncPlan& plan, const Network& net, const RunOptions& opt,
                   const Platform& platform)
    : plan_(plan), net_(net), opt_(opt), platform_(platform) {
  k_ = std::max(1, plan.iterations);
  gpus_ = std::max(1, plan.cluster.gpus_per_node);
  stragglers_ = make_stragglers(opt.stragglers, k_, plan.workers, opt.seed);
  const std::size_t n = plan.tasks.size();
  offset_.resize(n);
  dependents_.resize(n);
  shard_slice_.assign(n, {});
  for (std::uint32_t i = 0; i < n; ++i) {
    offset_[i] = stride_;
    stride_ += std::size_t(instances_of(i));
    for (const Dep& d : plan.tasks[i].deps) dependents_[d.task].push_back(Dep{i, d.lag});
    const int tensor = plan.tasks[i].tensor;
    if (tensor >= 0) {
      shard_slice_[i].assign(std::size_t(plan.num_shards()), -1);
      const auto& slices = plan.tensors[std::size_t(tensor)].slices;
      for (std::size_t s = 0; s < slices.size(); ++s) shard_slice_[i][std::size_t(slices[s].shard)] = int(s);
    }
  }
  pending_.assign(stride_ * std::size_t(k_), 0);
  flows_left_.assign(pending_.size(), 0);
  started_.assign(pending_.size(), 0);
  finished_.assign(pending_.size(), 0);
  done_.assign(pending_.size(), 0);
  const std::size_t nodes = std::size_t(plan.cluster.total_nodes()), iterations = std::size_t(k_);
  node_sent_.assign(nodes * iterations, 0);
  node_received_.assign(nodes * iterations, 0);
  outbox_.resize(nodes);
  flush_scheduled_.assign(nodes, 0);
  links_ = 2 * (nodes + std::size_t(plan.workers));
  link_bytes_.assign(links_ * iterations, 0);
  gpu_busy_.assign(iterations, 0);
  flows_.assign(iterations, 0);
  iter_left_.assign(iterations, stride_);
  iter_end_.assign(iterations, 0);
  first_launch_.assign(iterations, std::numeric_limits<double>::infinity());
  flow_end_sum_.assign(iterations, 0);
  rings_.assign(iterations, 0);
  inputs_repeat_ = true;
  for (int t = 1; t < k_; ++t)
    inputs_repeat_ = inputs_repeat_ && stragglers_.slowdown[std::size_t(t)] == stragglers_.slowdown[0] &&
                     stragglers_.dropped[std::size_t(t)] == stragglers_.dropped[0];
  count_pending();
}

bool Executor::is_barrier(std::uint32_t task) const { return plan_.tasks[task].kind == TaskKind::barrier; }
bool Executor::worker_scoped(std::uint32_t task) const {
  return plan_.tasks[task].scope == Scope::worker && !is_barrier(task);
}
int Executor::instances_of(std::uint32_t task) const {
  if (is_barrier(task)) return 1;
  if (plan_.tasks[task].scope == Scope::shard)
    return int(plan_.tensors[std::size_t(plan_.tasks[task].tensor)].slices.size());
  return plan_.workers;
}

// How many releases each instance waits for: one per dependency instance it needs.
void Executor::count_pending() {
  for (int t = 0; t < k_; ++t)
    for (std::uint32_t i = 0; i < plan_.tasks.size(); ++i) {
      int need = 0;
      for (const Dep& d : plan_.tasks[i].deps) {
        const int from = t - int(d.lag);
        if (from < 0) continue;
        if (is_barrier(d.task)) need += 1;
        else if (!worker_scoped(d.task)) need += instances_of(d.task);
        else need += worker_scoped(i) ? 1 : stragglers_.active(from);
      }
      for (int who = 0; who < instances_of(i); ++who) pending_[index(t, i, who)] = need;
    }
}

void Executor::start() {
  for (std::size_t stream = 0; stream < std::size_t(plan_.workers * gpus_); ++stream) {
    gpu_queue_.emplace_back();
    gpu_wake_.push_back(sg4::ConditionVariable::create());
    gpu_mutex_.push_back(sg4::Mutex::create());
  }
  // Inboxes: node hosts first, then GPUs, then host memories; a daemon drains each.
  std::vector<sg4::Host*> hosts = platform_.node;
  hosts.insert(hosts.end(), platform_.gpu.begin(), platform_.gpu.end());
  hosts.insert(hosts.end(), platform_.mem.begin(), platform_.mem.end());
  // Drains end on a stop token once every task instance has completed: killing one
  // blocked in get() at the end of the run would cancel a comm that has no route.
  for (sg4::Host* h : hosts) {
    sg4::Mailbox* mb = sg4::Mailbox::by_name("in-" + h->get_name());
    inbox_.push_back(mb);
    sg4::ActorPtr drain = sg4::Actor::create("drain-" + h->get_name(), h, [mb] {
      while (mb->get<int>() != &kStop) {
      }
      mb->set_receiver(nullptr);
    });
    mb->set_receiver(drain);
    drain_host_.push_back(h);
  }
  remaining_ = stride_ * std::size_t(k_);
  for (int w = 0; w < plan_.workers; ++w)
    for (int g = 0; g < gpus_; ++g) {
      sg4::Host* host = g == 0 ? platform_.gpu[std::size_t(w)] : platform_.follower[std::size_t(w)][std::size_t(g - 1)];
      sg4::Actor::create(host->get_name(), host, [this, w, g] { run_gpu(w, g); });
    }
  // Launch what needs nothing, from an actor (activities start only from actors).
  // The ready set is taken before any launch: a launch can yield to other actors, which
  // may bring more instances to zero pending and launch those themselves.
  std::vector<Instance> ready;
  for (int t = 0; t < k_; ++t)
    for (std::uint32_t i = 0; i < plan_.tasks.size(); ++i)
      for (int who = 0; who < instances_of(i); ++who)
        if (pending_[index(t, i, who)] == 0) ready.push_back(Instance{t, i, who});
  sg4::Actor::create("start", platform_.node[0], [this, ready] {
    for (const Instance& in : ready) launch(in);
  });
}

void Executor::release(int t, std::uint32_t task, int who) {
  if (--pending_[index(t, task, who)] == 0) launch(Instance{t, task, who});
}

void Executor::launch(const Instance& in) {
  if (steady_ >= 0 && in.t > steady_) return;  // reported from the repeated iteration
  const Task& task = plan_.tasks[in.task];
  const std::size_t id = index(in.t, in.task, in.who);
  started_[id] = sg4::Engine::get_clock();
  first_launch_[std::size_t(in.t)] = std::min(first_launch_[std::size_t(in.t)], started_[id]);
  ++in_flight_;
  if (gpu_kind(task.kind)) {
    // Every GPU of the node runs its share of the batch through forward and backward;
    // the leader alone quantizes and rebuilds (after gathering the others' gradients).
    const bool all = task.kind == TaskKind::forward || task.kind == TaskKind::backward;
    flows_left_[id] = all ? gpus_ : 1;
    for (int g = 0; g < flows_left_[id]; ++g) {
      const std::size_t stream = std::size_t(in.who * gpus_ + g);
      const std::unique_lock<sg4::Mutex> lock(*gpu_mutex_[stream]);
      gpu_queue_[stream].push_back(in);
      gpu_wake_[stream]->notify_one();
    }
    return;
  }
  switch (task.kind) {
    case TaskKind::copy_d2h:
    case TaskKind::copy_h2d: {
      const std::size_t w = std::size_t(in.who);
      const bool d2h = task.kind == TaskKind::copy_d2h;
      const std::size_t nodes = platform_.node.size(), workers = platform_.gpu.size();
      HostFlow f;
      f.src = d2h ? platform_.gpu[w] : platform_.mem[w];
      f.dst = d2h ? inbox_[nodes + workers + w] : inbox_[nodes + w];
      f.bytes = task.bytes;
      if (task.bytes <= 0) {
        complete(in);
        return;
      }
      flows_left_[id] = 1;
      sg4::Actor::create("copy", f.src, [this, in, f, w, d2h] {
        const double t0 = sg4::Engine::get_clock();
        f.dst->put(&kPayload, wire_bytes(f.bytes));
        count_link(in.t, pcie_d2h(int(w)) + (d2h ? 0 : 1), double(wire_bytes(f.bytes)));
        record(in, "PCIe", t0);
        complete(in);
      });
      return;
    }
    case TaskKind::gather:
    case TaskKind::scatter:
    case TaskKind::apply: {
      // Gather and scatter run on a worker's GPU-to-GPU path; an apply's `who` is a slice
      // index (there may be more slices than workers), and it runs on its shard's node.
      double amount = task.bytes;
      sg4::Host* host = nullptr;
      std::string track = "GPU-GPU";
      if (task.kind == TaskKind::apply) {
        const Slice& s = plan_.tensors[std::size_t(task.tensor)].slices[std::size_t(in.who)];
        host = platform_.node[std::size_t(plan_.shard_node(s.shard))];
        amount = stragglers_.active(in.t) * s.bytes + task.duration_s * host->get_speed();
        track = "shard " + std::to_string(s.shard) + " CPU";
      } else {
        host = platform_.d2d[std::size_t(in.who)];
      }
      if (amount <= 0) {
        complete(in);
        return;
      }
      sg4::Actor::create(to_string(task.kind), host, [this, in, amount, track] {
        const double t0 = sg4::Engine::get_clock();
        sg4::this_actor::execute(amount);
        record(in, track, t0);
        complete(in);
      });
      return;
    }
    case TaskKind::push:
    case TaskKind::pull:
    case TaskKind::broadcast:
      run_flows(in, expand_flows(plan_, task, in.who), task.pattern == FlowPattern::to_shards);
      return;
    case TaskKind::allreduce:
      if (plan_.workers < 2) {
        complete(in);
        return;
      }
      ++rings_[std::size_t(in.t)];
      sg4::Actor::create("ring", platform_.node[std::size_t(in.who)], [this, in] { run_ring(in); });
      return;
    case TaskKind::barrier:
      complete(in);
      return;
    default:
      return;
  }
}

void Executor::run_gpu(int worker, int gpu) {
  sg4::Actor::self()->daemonize();
  const std::size_t w = std::size_t(worker), stream = std::size_t(worker * gpus_ + gpu);
  const std::string track = gpu == 0 ? "GPU" : "GPU " + std::to_string(gpu);
  for (;;) {
    Instance in{};
    {
      std::unique_lock<sg4::Mutex> lock(*gpu_mutex_[stream]);
      while (gpu_queue_[stream].empty()) gpu_wake_[stream]->wait(lock);
      in = gpu_queue_[stream].front();
      gpu_queue_[stream].pop_front();
    }
    // Stragglers are per node: a node's GPUs share its slowdown.
    const double seconds = plan_.tasks[in.task].duration_s * stragglers_.slowdown[std::size_t(in.t)][w];
    const double t0 = sg4::Engine::get_clock();
    if (seconds > 0) sg4::this_actor::execute(seconds * kGpuFlopsPerSecond);
    if (gpu == 0) gpu_busy_[std::size_t(in.t)] += seconds;
    record(in, track, t0);
    if (--flows_left_[index(in.t, in.task, in.who)] == 0) complete(in);
  }
}

void Executor::run_flows(const Instance& in, std::vector<Flow> flows, bool notify_shards) {
  const std::size_t id = index(in.t, in.task, in.who);
  std::vector<HostFlow> remote;
  // Shard patterns: expand_flows makes one flow per slice, in the tensor's slice order.
  const bool per_slice = plan_.tasks[in.task].tensor >= 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    if (f.src_node == f.dst_node) continue;  // stays on the host
    HostFlow h;
    h.slice = per_slice ? int(i) : -1;
    h.src = platform_.node[std::size_t(f.src_node)];
    h.dst = inbox_[std::size_t(f.dst_node)];
    h.bytes = f.bytes;
    h.messages = f.messages;
    h.shard = f.shard;
    h.src_node = f.src_node;
    h.dst_node = f.dst_node;
    const int copies = opt_.flow_per_kv_pair && h.messages > 1 ? h.messages : 1;
    h.bytes /= copies;
    h.messages /= copies;
    h.slice_left = std::make_shared<int>(copies);
    remote.insert(remote.end(), std::size_t(copies), h);
  }
  flows_left_[id] = int(remote.size()) + 1;  // +1 until the local flows are accounted
  for (std::size_t i = 0; i < flows.size(); ++i)
    if (flows[i].src_node == flows[i].dst_node && notify_shards)
      delivered(in, flows[i].shard, per_slice ? int(i) : -1);
  // The worker handles each of its messages first (per-message software cost), then the
  // flows go out through their sending nodes' outboxes.
  double messages = 0;
  for (const HostFlow& f : remote) messages += f.messages;
  const double overhead_s = messages * plan_.rates.per_message_s;
  const auto send_all = [this, in, remote, notify_shards, id] {
    const double t0 = sg4::Engine::get_clock();
    for (const HostFlow& f : remote) post(Outgoing{f, in, id, notify_shards, t0});
    if (--flows_left_[id] == 0) complete(in);
  };
  if (overhead_s > 0) {
    sg4::Actor::create("messages", platform_.node[std::size_t(plan_.worker_node(in.who))],
                       [send_all, overhead_s] {
                         sg4::this_actor::sleep_for(overhead_s);
                         send_all();
                       });
  } else {
    send_all();
  }
}

// Flows posted on one node at one instant leave together: one flush actor takes them
// all and hands them to senders of at most kCommsPerHelper comms each. Start times are
// unchanged (the flush runs at the same simulated time); only the actor count drops,
// from one per flow to a few per node (a pull from 128 shards to 128 workers at once).
void Executor::post(const Outgoing& out) {
  const std::size_t n = std::size_t(out.flow.src_node);
  outbox_[n].push_back(out);
  if (flush_scheduled_[n]) return;
  flush_scheduled_[n] = 1;
  sg4::Actor::create("flush", platform_.node[n], [this, n] {
    std::vector<Outgoing> batch;
    batch.swap(outbox_[n]);
    flush_scheduled_[n] = 0;
    for (std::size_t begin = 0; begin < batch.size(); begin += kCommsPerHelper) {
      std::vector<Outgoing> group(batch.begin() + long(begin),
                                  batch.begin() + long(std::min(batch.size(), begin + kCommsPerHelper)));
      sg4::Actor::create("send", platform_.node[n], [this, group] { send_group(group); });
    }
  });
}

void Executor::send_group(std::vector<Outgoing> open) {
  std::vector<sg4::CommPtr> comms;
  const double sent_at = sg4::Engine::get_clock();
  for (const Outgoing& o : open)
    comms.push_back(o.flow.dst->put_async(&kPayload, wire_bytes(o.flow.bytes)));
  while (!comms.empty()) {
    const auto done = std::size_t(sg4::Comm::wait_any(comms));
    const Outgoing o = open[done];
    comms.erase(comms.begin() + long(done));
    open.erase(open.begin() + long(done));
    flow_landed(o.in.t, o.flow.src_node, o.flow.dst_node, o.flow.bytes);
    record_flow(o, sent_at);
    if (o.notify_shards && --*o.flow.slice_left == 0) delivered(o.in, o.flow.shard, o.flow.slice);
    if (--flows_left_[o.id] == 0) {
      record(o.in, "net", o.t0);
      complete(o.in);
    }
  }
}

void Executor::run_ring(const Instance& in) {
  const int p = plan_.workers;
  const auto mailbox = [&](int w) {
    return sg4::Mailbox::by_name("ring-" + std::to_string(in.t) + "-" + std::to_string(in.task) + "-" +
                                 std::to_string(w));
  };
  sg4::Mailbox* mine = mailbox(in.who);
  sg4::Mailbox* next = mailbox((in.who + 1) % p);
  const double chunk = plan_.tasks[in.task].bytes / p;
  const int next_node = plan_.worker_node((in.who + 1) % p);
  const double t0 = sg4::Engine::get_clock();
  for (int step = 0; step < 2 * (p - 1); ++step) {
    if (plan_.rates.per_message_s > 0) sg4::this_actor::sleep_for(plan_.rates.per_message_s);
    sg4::CommPtr out = next->put_async(&kPayload, wire_bytes(chunk));
    mine->get<int>();
    out->wait();
    flow_landed(in.t, plan_.worker_node(in.who), next_node, chunk);
  }
  record(in, "net", t0);
  complete(in);
}

// The apply of the same tensor waits for that very slice. An apply of another tensor
// (Adam: factors pushed, parameters applied) waits for its slice on the same shard.
// Matching by shard alone would release one slice twice and the other never where a
// tensor has two slices on one shard (TF stock's weights and biases on a single shard).
void Executor::delivered(const Instance& push, int shard, int slice) {
  if (dropped(push.t, push.who)) return;
  for (const Dep& d : dependents_[push.task]) {
    const int u = push.t + int(d.lag);
    if (u >= k_ || plan_.tasks[d.task].scope != Scope::shard) continue;
    const bool same_tensor = plan_.tasks[d.task].tensor == plan_.tasks[push.task].tensor;
    const int target = same_tensor ? slice : shard_slice_[d.task][std::size_t(shard)];
    if (target >= 0) release(u, d.task, target);
  }
}

void Executor::complete(const Instance& in) {
  const std::size_t id = index(in.t, in.task, in.who);
  if (done_[id]) {
    std::fprintf(stderr, "possim: simgrid engine: task %u (%s) of iteration %d, instance %d completed twice\n",
                 in.task, to_string(plan_.tasks[in.task].kind), in.t, in.who);
    std::abort();
  }
  done_[id] = 1;
  finished_[id] = sg4::Engine::get_clock();
  --remaining_;
  --in_flight_;
  if (--iter_left_[std::size_t(in.t)] == 0) end_iteration(in.t);
  // After a repeat is found, what was already under way finishes and releases nothing.
  if (remaining_ == 0 || (steady_ >= 0 && in_flight_ == 0)) stop_drains();
  if (steady_ >= 0 && in.t > steady_) return;
  const Task& done = plan_.tasks[in.task];
  for (const Dep& d : dependents_[in.task]) {
    const int u = in.t + int(d.lag);
    if (u >= k_) continue;
    const std::uint32_t i = d.task;
    if (worker_scoped(i)) {
      if (worker_scoped(in.task)) {
        release(u, i, in.who);
      } else {
        for (int w = 0; w < plan_.workers; ++w) release(u, i, w);
      }
    } else if (is_barrier(i)) {
      if (!(worker_scoped(in.task) && dropped(in.t, in.who))) release(u, i, 0);
    } else {  // a shard task
      if (!worker_scoped(in.task)) {
        for (int s = 0; s < instances_of(i); ++s) release(u, i, s);
      } else if (!dropped(in.t, in.who)) {
        // Slices this worker's flows reach were released on delivery; the rest now.
        const auto& slices = plan_.tensors[std::size_t(plan_.tasks[i].tensor)].slices;
        for (std::size_t s = 0; s < slices.size(); ++s) {
          const bool by_flow = done.pattern == FlowPattern::to_shards &&
                               shard_slice_[in.task][std::size_t(slices[s].shard)] >= 0;
          if (!by_flow) release(u, i, int(s));
        }
      }
    }
  }
}

// Statistics of one network flow of iteration t that has just landed.
void Executor::flow_landed(int t, int src_node, int dst_node, double bytes) {
  const std::size_t i = std::size_t(t), nodes = platform_.nic.size();
  ++flows_[i];
  flow_end_sum_[i] += sg4::Engine::get_clock();
  node_sent_[i * nodes + std::size_t(src_node)] += bytes;
  node_received_[i * nodes + std::size_t(dst_node)] += bytes;
  count_link(t, nic_tx(src_node), double(wire_bytes(bytes)));
  count_link(t, nic_tx(dst_node) + 1, double(wire_bytes(bytes)));
}

void Executor::stop_drains() {
  if (stopped_) return;
  stopped_ = true;
  for (std::size_t i = 0; i < inbox_.size(); ++i) {
    sg4::Mailbox* mb = inbox_[i];
    sg4::Actor::create("stop", drain_host_[i], [mb] { mb->put(&kStop, 0); });
  }
}

void Executor::end_iteration(int t) {
  iter_end_[std::size_t(t)] = sg4::Engine::get_clock();
  if (!opt_.reuse_repeating_iterations || !inputs_repeat_ || steady_ >= 0 || t < 1 || t + 1 >= k_) return;
  if (!repeats(t)) return;
  steady_ = t;
  period_ = iter_end_[std::size_t(t)] - iter_end_[std::size_t(t - 1)];
}

// Iteration t repeats t-1 when both began after their predecessor ended (so each started
// from an idle cluster), nothing later has begun before t ended, and every instance and
// flow of t sits at the same offset from its iteration's start as in t-1. The tolerance
// is rounding of absolute clock values, far below anything printed.
bool Executor::repeats(int t) const {
  const std::size_t now = std::size_t(t), before = now - 1;
  const double origin_before = t >= 2 ? iter_end_[now - 2] : 0.0;
  const double origin = iter_end_[before];
  if (first_launch_[before] < origin_before || first_launch_[now] < origin) return false;
  for (int u = t + 1; u < k_; ++u)
    if (first_launch_[std::size_t(u)] < iter_end_[now] || rings_[std::size_t(u)] > 0) return false;
  const double period = iter_end_[now] - origin, tol = 1e-9 * period;
  if (std::abs(period - (origin - origin_before)) > tol || flows_[now] != flows_[before]) return false;
  const double flows = double(flows_[now]);
  if (std::abs((flow_end_sum_[now] - flows * origin) - (flow_end_sum_[before] - flows * origin_before)) >
      tol * std::max(1.0, flows))
    return false;
  for (std::size_t i = 0; i < stride_; ++i) {
    const std::size_t a = before * stride_ + i, b = now * stride_ + i;
    if (std::abs((started_[b] - origin) - (started_[a] - origin_before)) > tol ||
        std::abs((finished_[b] - origin) - (finished_[a] - origin_before)) > tol)
      return false;
  }
  return true;
}

void Executor::record(const Instance& in, const std::string& track, double start) {
  if (!opt_.timeline) return;
  const Task& task = plan_.tasks[in.task];
  const bool shard = task.scope == Scope::shard;
  if (!shard && !opt_.trace_workers.contains(in.who)) return;
  const std::string layer = task.layer >= 0 ? net_.layers[std::size_t(task.layer)].name : "";
  TimelineEvent e;
  e.track = shard ? track : "worker " + std::to_string(in.who) + " " + track;
  e.name = std::string(to_string(task.kind)) + (layer.empty() ? "" : " " + layer);
  e.category = to_string(task.kind);
  e.start_s = start;
  e.duration_s = sg4::Engine::get_clock() - start;
  e.iteration = in.t;
  e.layer = task.layer;
  e.worker = shard ? -1 : in.who;
  timeline_.push_back(e);
}

// Each flow on its sender's NIC tx track and its receiver's rx track, for the nodes of
// traced workers (node w hosts worker w) and the dedicated server nodes.
void Executor::record_flow(const Outgoing& o, double start) {
  if (!opt_.timeline) return;
  const Task& task = plan_.tasks[o.in.task];
  const std::string name = std::string(to_string(task.kind)) +
                           (task.layer >= 0 ? " " + net_.layers[std::size_t(task.layer)].name : "");
  const double now = sg4::Engine::get_clock();
  for (const auto& [node, dir] : {std::pair<int, const char*>{o.flow.src_node, " NIC tx"},
                                  std::pair<int, const char*>{o.flow.dst_node, " NIC rx"}})
    if (node >= plan_.workers || opt_.trace_workers.contains(node))
      timeline_.push_back(TimelineEvent{"node " + std::to_string(node) + dir, name, to_string(task.kind),
                                        start, now - start, o.in.t, task.layer, -1});
}

Result Executor::result() const {
  // Iterations 0..simulated-1 ran; any later one repeats iteration steady_, shifted.
  const int simulated = steady_ >= 0 ? steady_ + 1 : k_;
  if (steady_ < 0 && remaining_ != 0)
    throw std::logic_error("plan '" + plan_.strategy + "': " + std::to_string(remaining_) +
                           " task instances never ran (their dependencies were never met)");
  std::vector<double> ends;
  for (int t = 0; t < k_; ++t) ends.push_back(iter_end_[std::size_t(source(t))] + shift(t));
  Result r = begin_result(plan_, net_, "simgrid", std::move(ends));
  r.simulated_iterations = simulated;
  // Per-iteration amounts summed over all k iterations, repeated ones from their source.
  const auto total = [&](const std::vector<double>& per_iteration, std::size_t stride, std::size_t j) {
    double sum = 0;
    for (int t = 0; t < k_; ++t) sum += per_iteration[std::size_t(source(t)) * stride + j];
    return sum;
  };
  r.gpu_busy_s = total(gpu_busy_, 1, 0) / (double(k_) * plan_.workers);
  r.gpu_stall_s = std::max(0.0, r.iteration_s - r.gpu_busy_s);
  const std::size_t nodes = platform_.nic.size();
  double sent = 0, received = 0;
  for (std::size_t n = 0; n < nodes; ++n) {
    const double s = total(node_sent_, nodes, n) / k_, rcv = total(node_received_, nodes, n) / k_;
    r.sent_bytes_max = std::max(r.sent_bytes_max, s);
    r.received_bytes_max = std::max(r.received_bytes_max, rcv);
    sent += s;
    received += rcv;
  }
  r.sent_bytes_mean = sent / double(nodes);
  r.received_bytes_mean = received / double(nodes);
  std::size_t flows = 0;
  for (int t = 0; t < k_; ++t) flows += flows_[std::size_t(source(t))];
  r.flows_per_iteration = double(flows) / k_;
  // Worker 0 (or the first slice) stands for the rest in the per-layer table.
  fill_layer_rows(plan_, net_, r, [&](std::size_t i) {
    const std::size_t id = index(source(k_ - 1), std::uint32_t(i), 0);
    return std::make_pair(started_[id] + shift(k_ - 1), finished_[id] + shift(k_ - 1));
  });
  // Links: the bytes each flow and copy put on them, and their busiest instant (link_load
  // plugin; a repeated iteration cannot exceed the one it repeats). The plugin's cumulated
  // load is not used: it counts 0.06-0.25% more than was sent (latency phases, measured).
  const double run_s = r.iteration_end_s.back();
  const auto use = [&](const sg4::Link* l, const std::string& name) {
    const double bytes = total(link_bytes_, links_, r.links.size());
    LinkUse u;
    u.link = name;
    u.bytes_per_iteration = bytes / k_;
    u.peak_utilization = sg_link_get_max_instantaneous_load(l) / l->get_bandwidth();
    u.mean_utilization = run_s > 0 ? bytes / (run_s * l->get_bandwidth()) : 0;
    r.links.push_back(u);
  };
  for (std::size_t n = 0; n < nodes; ++n) {
    use(platform_.nic[n]->get_link_up(), "nic-" + std::to_string(n) + " tx");
    use(platform_.nic[n]->get_link_down(), "nic-" + std::to_string(n) + " rx");
  }
  for (std::size_t w = 0; w < platform_.pcie.size(); ++w) {
    use(platform_.pcie[w]->get_link_up(), "pcie-" + std::to_string(w) + " d2h");
    use(platform_.pcie[w]->get_link_down(), "pcie-" + std::to_string(w) + " h2d");
  }
  for (const TimelineEvent& e : timeline_)
    if (e.iteration < simulated) r.timeline.push_back(e);
  for (int t = simulated; t < k_; ++t)
    for (const TimelineEvent& e : timeline_)
      if (e.iteration == steady_) {
        TimelineEvent copy = e;
        copy.iteration = t;
        copy.start_s += shift(t);
        r.timeline.push_back(copy);
      }
  return r;
}

}  // namespace possim::sim
