// Point-to-point network flows of one instance (to or from shards, to peers): the worker
// handles each message first (per-message software cost, a wait in sim/delays.hpp), then
// the flows leave through the network backend; each landed flow of a push tells its shard.
#include <map>
#include <tuple>

#include "sim/executor.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

void Executor::run_flows(const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  // Folded: the simulated worker's flows in the full cluster, on the nodes that carry them
  // (fold.hpp).
  const std::vector<Flow> flows = expand_flows(full(), task, fold_.worker_node(in.who));
  const bool push = task.pattern == FlowPattern::to_shards;
  // Folded onto worker 0 with colocated shards, a slice is delivered when the whole push has landed.
  const bool at_end = push && fold_.on() && !fold_.dedicated() && !fold_.by_classes();
  const bool notify_shards = push && !at_end;
  std::vector<HostFlow> remote;
  // Shard patterns: expand_flows makes one flow per slice, in the tensor's slice order.
  const bool per_slice = task.tensor >= 0;
  if (fold_.by_classes()) remote = group_by_classes(in, flows, push);
  else remote.reserve(flows.size());
  for (std::size_t i = 0; i < flows.size() && !fold_.by_classes(); ++i) {
    const Flow& f = flows[i];
    if (f.src_node == f.dst_node) continue;  // stays on the host
    HostFlow h;
    h.slice = per_slice ? int(i) : -1;
    h.src_node = fold_.node(f.src_node);
    h.dst_node = fold_.node(f.dst_node);
    h.bytes = f.bytes;
    h.messages = f.messages;
    h.shard = f.shard;
    append_copies(remote, h);
  }
  core_.expect(in, int(remote.size()) + 1);  // +1 until the local flows are accounted
  // By classes, a class of several nodes has its local slices delivered by its group's landing.
  const bool local_now = !fold_.by_classes() || fold_.class_size(in.who) == 1;
  for (std::size_t i = 0; i < flows.size(); ++i)
    if (flows[i].src_node == flows[i].dst_node && notify_shards && local_now)
      core_.delivered(in, flows[i].shard, per_slice ? int(i) : -1);
  double messages = 0;  // the worker's own: every remote flow of the full cluster's
  for (const Flow& f : flows)
    if (f.src_node != f.dst_node) messages += f.messages;
  const double overhead_s = messages * plan_.rates.per_message_s;
  auto send_all = [this, in, remote = std::move(remote), notify_shards, at_end] {
    const double t0 = now();
    for (const HostFlow& f : remote) post(Outgoing{f, in, notify_shards, t0});
    if (core_.last_part(in)) {
      if (at_end) deliver_all(in);
      complete(in);
    }
  };
  if (overhead_s > 0) delays_->after(overhead_s, std::move(send_all));
  else send_all();
}

// Through the network backend (sim/network/nic_network.hpp), landing back here. The flow
// waits in a slot: the call the backend keeps holds its index, small enough for
// std::function to keep without allocating (a full run posts millions of flows).
void Executor::post(const Outgoing& out) {
  std::uint32_t slot;
  if (!free_outgoing_.empty()) {
    slot = free_outgoing_.back();
    free_outgoing_.pop_back();
    outgoing_[slot] = out;
  } else {
    slot = std::uint32_t(outgoing_.size());
    outgoing_.push_back(out);
  }
  network_->send(out.flow.src_node, out.flow.dst_node, double(wire_bytes(out.flow.bytes)), [this, slot] {
    const Outgoing o = std::move(outgoing_[slot]);  // land() may post, and grow outgoing_
    free_outgoing_.push_back(slot);
    land(o);
  }, out.flow.m);
}

void Executor::land(const Outgoing& o) {
  flow_landed(o.in, o.flow);
  recorder_.timeline().flow(o.in, o.flow.src_node, o.flow.dst_node, o.t0, now(), o.flow.bytes, o.flow.shard);
  SliceGroup* g = o.flow.group.get();
  if (o.notify_shards && (!g || --g->left == 0)) {
    if (g && !g->delivers.empty()) {
      for (const auto& [shard, slice] : g->delivers) core_.delivered(o.in, shard, slice);
    } else {
      core_.delivered(o.in, o.flow.shard, o.flow.slice);
    }
  }
  if (core_.last_part(o.in)) {
    recorder_.timeline().instance(o.in, o.t0, now());
    if (fold_.on() && !fold_.dedicated() && !fold_.by_classes() &&
        plan_.tasks[o.in.task].pattern == FlowPattern::to_shards)
      deliver_all(o.in);
    complete(o.in);
  }
}

std::vector<HostFlow> Executor::group_by_classes(const Instance& in, const std::vector<Flow>& flows, bool push) {
  const bool per_slice = plan_.tasks[in.task].tensor >= 0;
  // (sending class's node, receiving class's node, the slice's shard's place on its node)
  std::map<std::tuple<int, int, int>, std::size_t> group;
  std::vector<HostFlow> out;
  std::vector<int> members;
  std::vector<std::size_t> local;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    if (f.src_node == f.dst_node) {  // stays on the host
      local.push_back(i);
      continue;
    }
    const int src = fold_.node(f.src_node), dst = fold_.node(f.dst_node);
    const auto [it, fresh] = group.try_emplace({src, dst, per_slice ? shard_place(full(), f.shard) : -1}, out.size());
    if (fresh) {
      HostFlow h;
      h.src_node = src;
      h.dst_node = dst;
      h.bytes = f.bytes;
      h.messages = f.messages;
      h.shard = f.shard;
      h.slice = per_slice ? int(i) : -1;
      h.m = fold_.multiplicity(src, dst);
      // Every node of the sending class sends m.tx of them.
      h.flows = fold_.class_size(fold_.classes->class_of[std::size_t(src)]) * h.m.tx;
      if (push) h.group = std::make_shared<SliceGroup>();
      out.push_back(h);
      members.push_back(0);
    }
    HostFlow& h = out[it->second];
    // A class's nodes hold the same slices (fold.cpp): a group's flows are alike.
    if (f.bytes != h.bytes || f.messages != h.messages)
      fault("folded by classes, flows of one group differ: " + std::to_string(f.bytes) + " vs " +
            std::to_string(h.bytes) + " bytes");
    ++members[it->second];
    if (push) h.group->delivers.emplace_back(f.shard, per_slice ? int(i) : -1);
  }
  // A local slice of a class of several nodes is delivered with its group to the class's
  // other nodes: it lands no earlier.
  for (const std::size_t i : local) {
    const auto it = group.find({flows[i].src_node, flows[i].dst_node, per_slice ? shard_place(full(), flows[i].shard) : -1});
    if (push && it != group.end()) out[it->second].group->delivers.emplace_back(flows[i].shard, per_slice ? int(i) : -1);
  }
  std::vector<HostFlow> remote;
  for (std::size_t g = 0; g < out.size(); ++g) {
    const HostFlow& h = out[g];
    // The worker's side of each group holds exactly the flows the multiplicity counts.
    const double mine = h.src_node == fold_.worker_node(in.who) ? h.m.tx : h.m.rx;
    if (double(members[g]) != mine)
      fault("folded by classes, a group of " + std::to_string(members[g]) + " flows stands for " +
            std::to_string(mine));
    append_copies(remote, h);
  }
  return remote;
}

// One flow per KV pair where asked (SimGridOptions::flow_per_kv_pair), sharing one count of
// those still in flight. A slice carried by one flow needs no count (a full run posts
// millions: a heap block each was a tenth of its time in malloc).
void Executor::append_copies(std::vector<HostFlow>& remote, HostFlow h) const {
  const int copies = sim_.flow_per_kv_pair && h.messages > 1 ? h.messages : 1;
  if (copies == 1) {
    remote.push_back(std::move(h));
    return;
  }
  h.bytes /= copies;
  h.messages /= copies;
  if (!h.group) h.group = std::make_shared<SliceGroup>();
  h.group->left = copies;
  remote.insert(remote.end(), std::size_t(copies), h);
}

}  // namespace possim::sim
