#include "live/node.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <tuple>

#include "live/arithmetic/node_math.hpp"
#include "live/emulated.hpp"
#include "live/kernel_stream.hpp"
#include "live/mesh.hpp"
#include "model/plan/collective.hpp"
#include "model/plan/interference.hpp"
#include "model/run/executor_core.hpp"
#include "net/wire.hpp"

namespace possim::live {

namespace {

using nlohmann::json;

// A node is the shared executor core's live binding (model/run/executor_core.hpp): the core
// releases its instances and records their times; the node runs each on an emulated
// resource, real kernels or real sockets, and tells its peers what they wait for.
class Node final : public ExecutorBackend {
 public:
  Node(const SyncPlan& plan, int me, int ctrl_fd, const std::string& address, const NodeOptions& opt);
  ~Node() override { shutdown(); }
  int run();

 private:
  using Key = std::tuple<int, std::uint32_t, int, int>;  // iteration, task, stream, peer worker

  std::size_t id(const Instance& in) const { return core_.id(in); }
  const InstanceGraph& graph() const { return core_.graph(); }
  int node_of(const Instance& in) const;
  std::vector<int> notify_targets(const Instance& in) const;

  // The binding (ExecutorBackend), called under mu_ as every method below but on_frame.
  double now() const override { return now_s(); }
  void occupy(ExecutorCore& core, const Instance& in) override;
  void transfer(ExecutorCore& core, const Instance& in) override;
  bool owns(const Instance& in) const override;
  bool completed(const Instance& in, double at_s) override;
  void fault(const std::string& what) override;

  void send_flow(int dst, const Instance& in, int part, const Flow& f);
  void launch_collective(const Instance& in);
  // Sends round `round` of a channel, and counts the receives it expects.
  struct Channel;
  void start_round(Channel& c);
  // Moves the channels of this worker's instance (t, task) through every round whose
  // receives have all arrived.
  void advance(int t, std::uint32_t task);
  void on_frame(int from, const Frame& f);
  void fail(const std::string& what);
  // Stops everything that could still call back: the mesh.
  void shutdown();
  void ctrl(const json& j);
  json report() const;
  // Runs a step of the arithmetic compute (if any); a failure there ends the run.
  template <class F>
  void math(F f) {
    if (!math_ || !error_.empty()) return;
    try {
      f();
    } catch (const std::exception& e) {
      error_ = std::string("node ") + std::to_string(me_) + ": " + e.what();
      cv_.notify_all();
    }
  }

  const SyncPlan& plan_;
  const int me_, nodes_;
  const int ctrl_fd_;
  const std::string address_;
  NodeOptions opt_;
  const TemplateDependents dependents_;
  Mesh mesh_;
  int gpus_ = 1;
  bool worker_ = false;

  std::mutex mu_;
  std::condition_variable cv_;
  ExecutorCore core_;  // release, dispatch, parts, each instance's times
  std::vector<int> owned_left_;  // per iteration
  std::size_t owned_total_left_ = 0;
  std::vector<InstanceRef> gpu_last_;
  std::vector<std::tuple<std::size_t, double, double>> gpu0_busy_;  // representative GPU
  std::map<Key, int> coll_received_;  // collective sends arrived, by (t, task, stream, sender)
  // This worker's part of each collective instance under way, by (t, task): its channels,
  // each a sequence of rounds (model/plan/collective.hpp).
  struct Channel {
    Instance in;  // this worker's instance of the collective
    std::vector<CollectiveRound> rounds;
    std::size_t round = 0;
    std::map<std::pair<int, int>, int> expected;  // (stream, peer) -> receives so far
  };
  std::map<std::pair<int, std::uint32_t>, std::vector<Channel>> collectives_;
  std::string error_;
  bool stop_ = false;
  std::mutex ctrl_mu_;
  // The coordinator's channel broke (it died, or closed it): the node has no one to report
  // to and ends quietly. Set by ctrl() from any thread, with or without mu_ held.
  std::atomic<bool> coordinator_gone_{false};

  std::unique_ptr<arith::NodeMath> math_;

  // Emulated resources and kernel streams (declared last: destroyed first, before what
  // their callbacks use).
  std::vector<std::unique_ptr<EmulatedResource>> gpu_;
  std::vector<std::unique_ptr<KernelStream>> kernels_;  // kernel compute: one per GPU
  std::unique_ptr<EmulatedResource> d2h_, h2d_, d2d_, cpu_;
  std::unique_ptr<EmulatedResource> launch_;  // collectives' launch cost (Rates::collective_launch_s)
  std::unique_ptr<EmulatedResource> round_;  // a barrier's fixed round (a stack's step sync), in seconds

  // Interference (model/plan/interference.hpp): communication kernels in flight slow the
  // emulated GPUs (real kernels interfere by themselves); GPU kernels not yet done
  // (submitted to a GPU: its stream runs them back to back), emulated or real, slow the
  // emulated GPU-to-GPU path. Under mu_.
  int comm_kernels_ = 0, kernels_pending_ = 0;
  void comm_kernel(int delta);
  void kernel_pending(int delta);
};

Node::Node(const SyncPlan& plan, int me, int ctrl_fd, const std::string& address, const NodeOptions& opt)
    : plan_(plan),
      me_(me),
      nodes_(plan.cluster.total_nodes()),
      ctrl_fd_(ctrl_fd),
      address_(address),
      opt_(opt),
      dependents_(plan),
      mesh_(me, plan.cluster.total_nodes(), address, opt.arithmetic.enabled()),
      core_(plan, *this) {
  if (opt.arithmetic.enabled()) math_ = std::make_unique<arith::NodeMath>(plan, opt.arithmetic, me);
  gpus_ = std::max(1, plan.cluster.gpus_per_node);
  worker_ = me < plan.workers;
  owned_left_.assign(std::size_t(graph().iterations()), 0);
  for (int t = 0; t < graph().iterations(); ++t)
    for (std::uint32_t task = 0; task < plan.tasks.size(); ++task)
      for (int who = 0; who < graph().instances_of(task); ++who)
        if (owns(Instance{t, task, who})) {
          ++owned_left_[std::size_t(t)];
          ++owned_total_left_;
        }
  const Rates& r = plan.rates;
  if (worker_) {
    if (opt.kernels.enabled())
      kernels_ = make_kernel_streams(plan, me, opt.kernels, [this](const std::string& e) {
        fail("node " + std::to_string(me_) + ": " + e);
      });
    else
      for (int g = 0; g < gpus_; ++g)
        gpu_.push_back(std::make_unique<EmulatedResource>("gpu " + std::to_string(g), 1.0, EmulatedResource::Discipline::fifo));
    gpu_last_.assign(std::size_t(gpus_), -1);
    d2h_ = std::make_unique<EmulatedResource>("pcie d2h", r.pcie_bytes_per_s, EmulatedResource::Discipline::sharing);
    h2d_ = std::make_unique<EmulatedResource>("pcie h2d", r.pcie_bytes_per_s, EmulatedResource::Discipline::sharing);
    d2d_ = std::make_unique<EmulatedResource>("gpu-gpu", r.d2d_bytes_per_s > 0 ? r.d2d_bytes_per_s : 1e15,
                                      EmulatedResource::Discipline::sharing);
  }
  cpu_ = std::make_unique<EmulatedResource>("server cpu", r.server_apply_bytes_per_s, EmulatedResource::Discipline::sharing);
  // Its thread only where a stack's step round is charged (Profile::step_sync_s).
  if (std::any_of(plan.tasks.begin(), plan.tasks.end(),
                  [](const Task& t) { return t.resource == Resource::none && t.duration_s > 0; }))
    round_ = std::make_unique<EmulatedResource>("step sync", 1.0, EmulatedResource::Discipline::sharing);
  // A collective's launch: a delay each (jobs of no amount wait out their own delay at once).
  if (r.collective_launch_s > 0)
    launch_ = std::make_unique<EmulatedResource>("collective launch", 1.0, EmulatedResource::Discipline::sharing);
}

void Node::comm_kernel(int delta) {
  if (!crossed_zero(comm_kernels_, delta)) return;
  for (auto& g : gpu_) g->set_slowdown(comm_kernels_ > 0 ? plan_.rates.interference_kernel_slowdown : 1.0);
}

void Node::kernel_pending(int delta) {
  if (crossed_zero(kernels_pending_, delta) && d2d_)
    d2d_->set_slowdown(kernels_pending_ > 0 ? plan_.rates.interference_comm_slowdown : 1.0);
}

int Node::node_of(const Instance& in) const {
  const Task& task = plan_.tasks[in.task];
  switch (task.scope) {
    case Scope::worker: return plan_.worker_node(in.who);
    case Scope::shard:
      return plan_.shard_node(plan_.tensors[std::size_t(task.tensor)].slices[std::size_t(in.who)].shard);
    case Scope::cluster: return me_;  // every node runs its replica
  }
  return me_;
}

bool Node::owns(const Instance& in) const { return node_of(in) == me_; }

// The nodes running an instance that waits for `in` (by the fan-in rules of
// sync_plan.hpp): they learn of its completion from a "done" frame. Cluster tasks are
// replicated on every node and tell nobody.
std::vector<int> Node::notify_targets(const Instance& in) const {
  const Task& task = plan_.tasks[in.task];
  std::set<int> to;
  if (task.scope == Scope::cluster) return {};
  for (const Dep& d : dependents_[in.task]) {
    const Task& next = plan_.tasks[d.task];
    switch (next.scope) {
      case Scope::worker:
        if (task.scope == Scope::worker) to.insert(plan_.worker_node(in.who));
        else
          for (int w = 0; w < plan_.workers; ++w) to.insert(plan_.worker_node(w));
        break;
      case Scope::cluster:
        for (int n = 0; n < nodes_; ++n) to.insert(n);
        break;
      case Scope::shard:
        for (const Slice& s : plan_.tensors[std::size_t(next.tensor)].slices) to.insert(plan_.shard_node(s.shard));
        break;
    }
  }
  to.erase(me_);
  return {to.begin(), to.end()};
}

void Node::fail(const std::string& what) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_ || !error_.empty()) return;
  error_ = what;
  cv_.notify_all();
}

// Never throws: it is called from resource and socket threads, where an exception would
// end the process with SIGABRT. A broken channel ends the run (run() sees the flag).
void Node::ctrl(const json& j) {
  std::lock_guard<std::mutex> lock(ctrl_mu_);
  if (coordinator_gone_) return;
  try {
    net::send_json(ctrl_fd_, j);
  } catch (const std::exception&) {
    coordinator_gone_ = true;
    cv_.notify_all();
  }
}

// The plan's resources bound to this node's emulated resources, kernel streams and sockets.
void Node::occupy(ExecutorCore& core, const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  InstanceTiming& rec = core.timing(in);
  switch (task.resource) {
    case Resource::gpu: {
      const int n = task.gpus == GpuSet::all ? gpus_ : 1;
      const float slow = float(plan_.stragglers.slowdown[std::size_t(in.t)][std::size_t(in.who)]);
      rec.slowdown = slow;
      core.expect(in, n);
      for (int g = 0; g < n; ++g) {
        auto done = [this, in, g](double s0, double s1) {
          std::lock_guard<std::mutex> lock(mu_);
          if (stop_) return;
          kernel_pending(-1);
          const std::size_t k = id(in);
          const InstanceRef before = gpu_last_[std::size_t(g)];
          gpu_last_[std::size_t(g)] = InstanceRef(k);
          if (g == 0 && me_ == 0) gpu0_busy_.emplace_back(k, s0, s1);
          if (core_.parts_left(in) == 1) {  // the stream that finishes it last says what it queued behind
            InstanceTiming& x = core_.timing(in);
            x.start_s = s0;
            x.queued_behind = s0 > x.ready_s + 1e-4 ? before : InstanceTiming::kNone;
          }
          core_.part_done(in, s1);
        };
        kernel_pending(+1);  // emulated or real, it slows the emulated GPU-to-GPU path
        if (kernels_.empty()) {
          gpu_[std::size_t(g)]->submit(task.duration_s * slow, 0, rec.ready_s, std::move(done));
          continue;
        }
        kernels_[std::size_t(g)]->submit(task, plan_.per_iteration_s, slow, std::move(done));
      }
      return;
    }
    case Resource::pcie_d2h:
    case Resource::pcie_h2d:
    case Resource::intra_node:
    case Resource::server_cpu:
    case Resource::host_cpu: {
      EmulatedResource* r = nullptr;
      double amount = task.bytes, delay = 0;
      if (task.resource == Resource::server_cpu) {
        math([&] { math_->apply(in); });
        const Slice& s = plan_.tensors[std::size_t(task.tensor)].slices[std::size_t(in.who)];
        amount = plan_.stragglers.active(in.t) * s.bytes + task.duration_s * plan_.rates.server_apply_bytes_per_s;
        r = cpu_.get();
      } else if (task.resource == Resource::intra_node) {
        r = d2d_.get();
      } else if (task.resource == Resource::host_cpu) {  // the node's CPU, shared with its shards' applies
        r = cpu_.get();
      } else {
        r = task.resource == Resource::pcie_d2h ? d2h_.get() : h2d_.get();
        delay = plan_.rates.pcie_latency_s;
      }
      if (amount <= 0) {
        core.complete(in, rec.ready_s);
        return;
      }
      core.expect(in, 1);
      const bool gpu_path = task.resource == Resource::intra_node;
      if (gpu_path) comm_kernel(+1);
      r->submit(amount, delay, -1, [this, in, gpu_path](double, double) {
        std::lock_guard<std::mutex> lock(mu_);
        if (stop_) return;
        if (gpu_path) comm_kernel(-1);
        core_.part_done(in);
      });
      return;
    }
    case Resource::none:  // every node's replica waits out the barrier's round, if any
      if (task.duration_s <= 0) {
        core.complete(in, rec.ready_s);
        return;
      }
      core.expect(in, 1);
      round_->submit(task.duration_s, 0, -1, [this, in](double, double) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!stop_) core_.part_done(in);
      });
      return;
    case Resource::network: transfer(core, in); return;
  }
}

void Node::transfer(ExecutorCore& core, const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  if (task.pattern == FlowPattern::collective) {
    if (!launch_) {
      launch_collective(in);
      return;
    }
    launch_->submit(0, plan_.rates.collective_launch_s, -1, [this, in](double, double) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!stop_) launch_collective(in);
    });
    return;
  }
  {
      const std::vector<Flow> flows = expand_flows(plan_, task, in.who);
      int remote = 0;
      std::vector<std::pair<int, int>> local;  // (shard, slice) delivered on this host
      for (std::size_t k = 0; k < flows.size(); ++k) {
        const Flow& f = flows[k];
        if (f.src_node == f.dst_node) {  // the slice's shard is on this node
          math([&] { math_->flow_in(in, int(k), math_->flow_out(in, int(k))); });
          if (task.pattern == FlowPattern::to_shards) local.emplace_back(f.shard, int(k));
          continue;
        }
        ++remote;
        if (task.pattern == FlowPattern::from_shards)
          mesh_.send(f.src_node, kControlChannel, Frame{Kind::pull, in.task, in.t, in.who, int(k), 0, 0, nullptr});
        else
          send_flow(f.dst_node, in, int(k), f);
      }
      core.expect(in, remote);  // under mu_: no landing can be handled before this
      for (const auto& [shard, slice] : local) core.delivered(in, shard, slice);
      if (remote == 0) core.complete(in);
  }
}

// A flow as its messages (KV pairs): each a data frame, the last one flagged.
void Node::send_flow(int dst, const Instance& in, int part, const Flow& f) {
  if (math_) {  // the values, in one message
    Frame v{Kind::data, in.task, in.t, in.who, part, kLast, 0, nullptr};
    math([&] { v.payload = math_->flow_out(in, part); });
    if (!v.payload) return;  // failed: the run is ending
    v.bytes = v.payload->size();
    mesh_.send(dst, kDataChannel, v);
    return;
  }
  const std::uint64_t total = std::uint64_t(std::max(1.0, std::llround(f.bytes) * 1.0));
  const std::uint64_t m = std::uint64_t(std::max(1, std::min<int>(f.messages, int(std::min<std::uint64_t>(total, 1u << 20)))));
  const std::uint64_t each = total / m;
  for (std::uint64_t k = 0; k < m; ++k) {
    const bool last = k + 1 == m;
    mesh_.send(dst, kDataChannel,
               Frame{Kind::data, in.task, in.t, in.who, part, last ? kLast : 0u, last ? total - each * (m - 1) : each, nullptr});
  }
}

// Before its dependents are released: the model's arithmetic, then the peers that wait.
bool Node::completed(const Instance& in, double) {
  if (!owns(in)) return true;  // (cluster replicas too: every node counts its own)
  if (math_) {
    const Task& task = plan_.tasks[in.task];
    if (task.resource == Resource::gpu) math([&] { math_->gpu_done(in); });
    if (task.pattern == FlowPattern::collective) math([&] { math_->coll_done(in); });
  }
  for (int n : notify_targets(in)) mesh_.send(n, kControlChannel, Frame{Kind::done, in.task, in.t, in.who, 0, 0, 0, nullptr});
  --owned_total_left_;
  if (--owned_left_[std::size_t(in.t)] == 0) ctrl({{"type", "iteration"}, {"t", in.t}});
  if (owned_total_left_ == 0) cv_.notify_all();
  return true;
}

// A bug (or a peer's): the run cannot be trusted.
void Node::fault(const std::string& what) {
  error_ = std::string("live engine: ") + what;
  cv_.notify_all();
}

void Node::launch_collective(const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  CollectiveSchedule sched = collective_schedule(task.collective, plan_.workers, in.who, task.bytes, task.chunks);
  if (plan_.workers < 2 || sched.empty()) {
    core_.complete(in);
    return;
  }
  core_.expect(in, int(sched.size()));
  comm_kernel(+1);  // until its last channel's last round (advance())
  std::vector<Channel>& channels = collectives_[{in.t, in.task}];
  for (auto& rounds : sched) channels.push_back(Channel{in, std::move(rounds), 0, {}});
  for (Channel& c : channels) start_round(c);
  advance(in.t, in.task);
}

// A round's sends leave at once (queued to the peers' connections, as into NCCL's slots);
// the round is done when one send from each peer it expects has arrived (it may have come
// already). A send needs no acknowledgement: the receiver's own round waits for it, and
// TCP delivers it. Driven by arrivals, no thread per channel.
void Node::start_round(Channel& c) {
  if (c.round >= c.rounds.size()) return;
  const CollectiveRound& r = c.rounds[c.round];
  for (const CollectiveSend& x : r.sends) {
    Frame f{Kind::coll, c.in.task, c.in.t, c.in.who, x.stream, 0, std::uint64_t(std::max(1.0, std::round(x.bytes))), nullptr};
    if (math_) {
      math([&] { f.payload = math_->coll_send(c.in, int(c.round)); });
      if (!f.payload) return;
      f.bytes = f.payload->size();
    }
    mesh_.send(plan_.worker_node(x.peer), kDataChannel, f);
  }
  for (const CollectiveReceive& x : r.receives) ++c.expected[{x.stream, x.peer}];
}

void Node::advance(int t, std::uint32_t task) {
  const auto it = collectives_.find({t, task});
  if (it == collectives_.end()) return;  // not launched here yet: arrivals wait in the counts
  const Instance in = it->second.front().in;
  for (Channel& c : it->second)
    while (c.round < c.rounds.size()) {
      bool arrived = true;
      for (const CollectiveReceive& x : c.rounds[c.round].receives)
        arrived = arrived && coll_received_[Key{t, task, x.stream, x.peer}] >= c.expected[{x.stream, x.peer}];
      if (!arrived) break;
      if (math_) math([&] { math_->coll_round_done(c.in, int(c.round)); });
      if (++c.round < c.rounds.size()) start_round(c);
      else core_.part_done(in);
    }
  if (core_.parts_left(in) == 0) {
    collectives_.erase(it);
    comm_kernel(-1);
  }
}

void Node::on_frame(int from, const Frame& f) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stop_ || !error_.empty()) return;
  const auto bad = [&] { error_ = "node " + std::to_string(from) + " sent a frame this plan cannot have"; };
  if (f.task >= plan_.tasks.size() || f.t < 0 || f.t >= graph().iterations() || f.who < 0 ||
      f.who >= graph().instances_of(f.task)) {
    bad();
    cv_.notify_all();
    return;
  }
  const Instance in{f.t, f.task, f.who};
  const Task& task = plan_.tasks[f.task];
  switch (f.kind) {
    case Kind::data:
      if (!(f.flags & kLast)) return;
      if (math_) {
        if (task.pattern == FlowPattern::to_shards || task.pattern == FlowPattern::from_shards ||
            task.pattern == FlowPattern::to_peers)
          math([&] { math_->flow_in(in, f.part, f.payload); });
        else
          return bad();
      }
      if (task.pattern == FlowPattern::from_shards) {
        core_.part_done(in);
      } else {
        if (task.pattern == FlowPattern::to_shards) {
          const auto& slices = plan_.tensors[std::size_t(task.tensor)].slices;
          if (f.part < 0 || std::size_t(f.part) >= slices.size()) return bad();
          core_.delivered(in, slices[std::size_t(f.part)].shard, f.part);
        }
        mesh_.send(from, kControlChannel, Frame{Kind::landed, f.task, f.t, f.who, f.part, 0, 0, nullptr});
      }
      return;
    case Kind::landed: core_.part_done(in); return;
    case Kind::pull: {
      const std::vector<Flow> flows = expand_flows(plan_, task, f.who);
      if (f.part < 0 || std::size_t(f.part) >= flows.size()) return bad();
      send_flow(from, in, f.part, flows[std::size_t(f.part)]);
      return;
    }
    case Kind::done:
      core_.completed_elsewhere(in);
      return;
    case Kind::coll:
      if (math_) math([&] { math_->coll_arrived(in, f.part, f.payload); });
      ++coll_received_[Key{f.t, f.task, f.part, f.who}];
      advance(f.t, f.task);
      return;
    case Kind::hello: return bad();
  }
  bad();
}

json Node::report() const {
  json recs = json::array();
  for (std::size_t i = 0; i < graph().size(); ++i) {
    if (core_.end_s(i) < 0) continue;  // ran elsewhere (cluster replicas: node 0's are taken)
    const InstanceTiming& r = core_.path().at(i);
    recs.push_back({i, r.ready_s, r.start_s, core_.end_s(i), r.released_by, r.queued_behind, r.slowdown});
  }
  json busy = json::array();
  for (const auto& [i, s0, s1] : gpu0_busy_) busy.push_back({i, s0, s1});
  json out = {{"type", "finished"}, {"records", recs}, {"gpu0_busy", busy}};
  if (math_ && worker_) {
    out["loss"] = math_->losses();
    out["params"] = math_->params();
  }
  return out;
}

int Node::run() {
  ctrl({{"type", "hello"}, {"port", mesh_.port()}, {"address", address_}});
  const json roster = net::recv_json(ctrl_fd_);
  if (roster.value("type", "") != "roster") throw std::runtime_error("expected the roster");
  mesh_.connect(roster.at("addresses").get<std::vector<std::string>>(),
                roster.at("ports").get<std::vector<std::uint16_t>>(), opt_.connect_timeout_s);
  mesh_.start([this](int from, const Frame& f) { on_frame(from, f); },
              [this](const std::string& e) { fail(e); });
  ctrl({{"type", "ready"}});
  if (net::recv_json(ctrl_fd_).value("type", "") != "go") throw std::runtime_error("expected go");
  {
    std::unique_lock<std::mutex> lock(mu_);
    core_.start();
    // Polled as well as notified: coordinator_gone_ is set without mu_.
    while (!cv_.wait_for(lock, std::chrono::milliseconds(100),
                         [&] { return owned_total_left_ == 0 || !error_.empty() || coordinator_gone_; })) {
    }
    if (coordinator_gone_) {
      lock.unlock();
      shutdown();
      return kCoordinatorGone;
    }
    if (!error_.empty()) {
      const std::string e = error_;
      lock.unlock();
      // The cause first, then the connections: a peer that sees them close reports that
      // too, and the coordinator names whichever error it reads first.
      ctrl({{"type", "error"}, {"message", e}});
      shutdown();
      return 1;
    }
  }
  // Every instance of this node is done; peers may still need it (pulls, acks) until all
  // are: it reports, then serves until the coordinator says quit.
  ctrl(report());
  const json quit = net::recv_json(ctrl_fd_);
  shutdown();  // every instance of every node is done: nothing is in flight
  ctrl({{"type", "counters"}, {"sent", mesh_.sent_by_iteration()}, {"received", mesh_.received_by_iteration()}});
  return quit.value("type", "") == "quit" ? 0 : 1;
}

void Node::shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  mesh_.close();
}

}  // namespace

int run_node(const SyncPlan& plan, int node, int ctrl_fd, const std::string& address, const NodeOptions& opt) {
  try {
    Node n(plan, node, ctrl_fd, address, opt);
    return n.run();
  } catch (const std::exception& e) {
    try {
      net::send_json(ctrl_fd, {{"type", "error"}, {"message", e.what()}});
    } catch (...) {
    }
    return 1;
  }
}

}  // namespace possim::live
