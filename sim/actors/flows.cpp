// Point-to-point network flows of one instance (to or from shards, to peers): the worker
// handles each message first (per-message software cost), then the flows leave through
// the network backend; each landed flow of a push tells its shard.
#include "sim/executor.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

void Executor::run_flows(const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  // Folded: worker 0's flows in the full cluster, on the nodes that carry them (fold.hpp).
  const std::vector<Flow> flows = expand_flows(full(), task, in.who);
  const bool push = task.pattern == FlowPattern::to_shards;
  // Folded with colocated shards, a slice is delivered when the whole push has landed.
  const bool at_end = push && fold_.on() && !fold_.dedicated();
  const bool notify_shards = push && !at_end;
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
    h.bytes = f.bytes;
    h.messages = f.messages;
    h.shard = f.shard;
    const int copies = sim_.flow_per_kv_pair && h.messages > 1 ? h.messages : 1;
    h.bytes /= copies;
    h.messages /= copies;
    h.slice_left = std::make_shared<int>(copies);
    remote.insert(remote.end(), std::size_t(copies), h);
  }
  core_.expect(in, int(remote.size()) + 1);  // +1 until the local flows are accounted
  for (std::size_t i = 0; i < flows.size(); ++i)
    if (flows[i].src_node == flows[i].dst_node && notify_shards)
      core_.delivered(in, flows[i].shard, per_slice ? int(i) : -1);
  double messages = 0;
  for (const HostFlow& f : remote) messages += f.messages;
  const double overhead_s = messages * plan_.rates.per_message_s;
  const auto send_all = [this, in, remote, notify_shards, at_end] {
    const double t0 = now();
    for (const HostFlow& f : remote) post(Outgoing{f, in, notify_shards, t0});
    if (core_.last_part(in)) {
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

// Through the network backend (sim/network/nic_network.hpp), landing back here.
void Executor::post(const Outgoing& out) {
  network_->send(out.flow.src_node, out.flow.dst_node, double(wire_bytes(out.flow.bytes)), [this, out] { land(out); });
}

void Executor::land(const Outgoing& o) {
  flow_landed(o.in, o.flow.src_node, o.flow.dst_node, o.flow.bytes);
  recorder_.timeline().flow(o.in, o.flow.src_node, o.flow.dst_node, o.t0, now(), o.flow.bytes, o.flow.shard);
  if (o.notify_shards && --*o.flow.slice_left == 0)
    core_.delivered(o.in, o.flow.shard, o.flow.slice);
  if (core_.last_part(o.in)) {
    recorder_.timeline().instance(o.in, o.t0, now());
    if (fold_.on() && !fold_.dedicated() && plan_.tasks[o.in.task].pattern == FlowPattern::to_shards)
      deliver_all(o.in);
    complete(o.in);
  }
}

}  // namespace possim::sim
