// Point-to-point network flows of one instance (to or from shards, to peers): the worker
// handles each message first (per-message software cost), then the flows leave through
// their sending nodes' outboxes; each landed flow of a push tells its shard.
#include "sim/executor.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

namespace {
constexpr std::size_t kCommsPerSender = 64;  // many pending comms per actor scale badly
}  // namespace

void Executor::run_flows(const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  // Folded: worker 0's flows in the full cluster, on the nodes that carry them (fold.hpp).
  const std::vector<Flow> flows = expand_flows(full(), task, in.who);
  const bool push = task.pattern == FlowPattern::to_shards;
  // Folded with colocated shards, a slice is delivered when the whole push has landed.
  const bool at_end = push && fold_.on() && !fold_.dedicated();
  const bool notify_shards = push && !at_end;
  const auto ready = [this](const Instance& r) { launch(r); };
  std::vector<HostFlow> remote;
  // Shard patterns: expand_flows makes one flow per slice, in the tensor's slice order.
  const bool per_slice = task.tensor >= 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    if (f.src_node == f.dst_node) continue;  // stays on the host
    HostFlow h;
    h.slice = per_slice ? int(i) : -1;
    h.src_node = fold_.node(f.src_node);
    h.dst_node = fold_.node(f.dst_node);
    h.src = platform_.node[std::size_t(h.src_node)];
    h.dst = node_inbox(h.dst_node);
    h.bytes = f.bytes;
    h.messages = f.messages;
    h.shard = f.shard;
    const int copies = sim_.flow_per_kv_pair && h.messages > 1 ? h.messages : 1;
    h.bytes /= copies;
    h.messages /= copies;
    h.slice_left = std::make_shared<int>(copies);
    remote.insert(remote.end(), std::size_t(copies), h);
  }
  left_[id(in)] = int(remote.size()) + 1;  // +1 until the local flows are accounted
  for (std::size_t i = 0; i < flows.size(); ++i)
    if (flows[i].src_node == flows[i].dst_node && notify_shards)
      graph_.delivered(in, flows[i].shard, per_slice ? int(i) : -1, ready);
  double messages = 0;
  for (const HostFlow& f : remote) messages += f.messages;
  const double overhead_s = messages * plan_.rates.per_message_s;
  const auto send_all = [this, in, remote, notify_shards, at_end] {
    const double t0 = now();
    for (const HostFlow& f : remote) post(Outgoing{f, in, notify_shards, t0});
    if (--left_[id(in)] == 0) {
      if (at_end) deliver_all(in);
      complete(in);
    }
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

// Flows leave through a few long-lived senders per node, each holding at most
// kCommsPerSender comms in flight (an actor waiting on many comms pays a scan of all of
// them at each completion), created as the node's flows in flight need them and kept
// until the run ends. A flow no longer keeps an actor (and its stack) of its own alive
// while it waits for bandwidth: memory grows with the senders, not with the flows or the
// instants they were posted at. A sender runs on its node's ctl host (its flows cross the
// node's NIC as the node's own would; the sentinel does not take the node's CPU from the
// shard's applies) and waits on its flows and on a sentinel Exec that never ends by itself; a post cancels the sentinel, which wakes the sender at the very
// instant of the post without touching the network's sharing problem, so every flow
// starts when it was posted.
void Executor::post(const Outgoing& out) {
  const int n = out.flow.src_node;
  auto& pool = senders_[std::size_t(n)];
  Sender* s = nullptr;
  for (const auto& c : pool)
    if (c->open + c->queue.size() < kCommsPerSender) {
      s = c.get();
      break;
    }
  if (s == nullptr) {
    pool.push_back(std::make_unique<Sender>());
    s = pool.back().get();
    s->woken = true;  // takes its queue when it first runs
    sg4::Actor::create("send", platform_.ctl[std::size_t(n)], [this, s] { run_sender(s); });
  }
  s->queue.push_back(out);
  wake(s);
}

void Executor::wake(Sender* s) {
  if (s->woken) return;
  s->woken = true;
  // Held here: the sender may replace its sentinel before maestro runs this cancel.
  const sg4::ExecPtr sentinel = s->sentinel;
  sentinel->cancel();
}

void Executor::run_sender(Sender* s) {
  std::vector<sg4::ActivityPtr> waiting;  // [0]: the sentinel; then the flows in flight
  std::vector<Outgoing> open;
  for (;;) {
    if (s->woken) {  // new flows (posts meanwhile only queue theirs: woken is still set)
      s->sentinel = sg4::this_actor::exec_async(1e15);
      if (waiting.empty()) waiting.emplace_back();
      waiting[0] = s->sentinel;
      while (!s->queue.empty()) {
        std::vector<Outgoing> batch;
        batch.swap(s->queue);
        for (Outgoing& o : batch) {
          waiting.push_back(o.flow.dst->put_async(payload(), wire_bytes(o.flow.bytes)));
          open.push_back(std::move(o));
        }
        s->open += batch.size();
      }
      s->woken = false;  // from here on, a post cancels the sentinel
    }
    if (s->stop) return;  // the run is over: every flow has landed
    std::size_t done = 0;
    try {
      done = std::size_t(sg4::Activity::wait_any(waiting));
    } catch (const simgrid::CancelException&) {
      continue;  // the sentinel: woken
    }
    if (done == 0) continue;  // cannot happen (1e15 flops at 1 flop/s)
    const Outgoing o = std::move(open[done - 1]);
    waiting.erase(waiting.begin() + long(done));
    open.erase(open.begin() + long(done - 1));
    --s->open;
    land(o);
  }
}

// Once every flow has landed (the run is over): each sender ends.
void Executor::stop_senders() {
  for (const auto& pool : senders_)
    for (const auto& s : pool) {
      s->stop = true;
      wake(s.get());
    }
}

void Executor::land(const Outgoing& o) {
  flow_landed(o.in, o.flow.src_node, o.flow.dst_node, o.flow.bytes);
  recorder_.flow(o.in, o.flow.src_node, o.flow.dst_node, o.t0, now());
  if (o.notify_shards && --*o.flow.slice_left == 0)
    graph_.delivered(o.in, o.flow.shard, o.flow.slice, [this](const Instance& r) { launch(r); });
  if (--left_[id(o.in)] == 0) {
    recorder_.task(o.in, "net", o.t0, now());
    if (fold_.on() && !fold_.dedicated() && plan_.tasks[o.in.task].pattern == FlowPattern::to_shards)
      deliver_all(o.in);
    complete(o.in);
  }
}

}  // namespace possim::sim
