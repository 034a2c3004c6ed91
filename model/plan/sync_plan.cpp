#include "model/plan/sync_plan.hpp"

#include "model/plan/collective.hpp"
#include "model/plan/transport.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace possim {

double SyncPlan::nic_bytes_per_s() const {
  // The host's ceiling is bytes of the scenario's scale too (network_scale, time dilation).
  return payload_bytes_per_s(line_rate_bytes_per_s(),
                             {rates.wire_efficiency, rates.host_bytes_per_s / network_scale, cluster.transport});
}

const char* to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::ring: return "ring";
    case CollectiveKind::double_tree: return "double_tree";
  }
  return "?";
}

bool SyncPlan::undisturbed() const {
  for (std::size_t t = 0; t < stragglers.slowdown.size(); ++t)
    for (std::size_t w = 0; w < stragglers.slowdown[t].size(); ++w)
      if (stragglers.slowdown[t][w] != 1.0 || stragglers.dropped[t][w] != 0) return false;
  return true;
}

std::vector<Flow> expand_flows(const SyncPlan& plan, const Task& t, int w) {
  std::vector<Flow> flows;
  const int me = plan.worker_node(w);
  switch (t.pattern) {
    case FlowPattern::none: break;
    case FlowPattern::to_shards:
    case FlowPattern::from_shards: {
      const Tensor& tensor = plan.tensors.at(std::size_t(t.tensor));
      flows.reserve(tensor.slices.size());
      for (const Slice& s : tensor.slices) {
        Flow f;
        f.bytes = s.bytes * t.scale;
        f.messages = s.pairs;
        f.shard = s.shard;
        f.src_node = t.pattern == FlowPattern::to_shards ? me : plan.shard_node(s.shard);
        f.dst_node = t.pattern == FlowPattern::to_shards ? plan.shard_node(s.shard) : me;
        flows.push_back(f);
      }
      break;
    }
    case FlowPattern::to_peers:
      flows.reserve(std::size_t(std::max(0, plan.workers - 1)));
      for (int p = 0; p < plan.workers; ++p) {
        if (p == w) continue;
        flows.push_back(Flow{me, plan.worker_node(p), t.bytes, 1, -1});
      }
      break;
    case FlowPattern::collective:
      for (const auto& channel : collective_schedule(t.collective, plan.workers, w, t.bytes, t.chunks))
        for (const CollectiveRound& r : channel)
          for (const CollectiveSend& send : r.sends)
            flows.push_back(Flow{me, plan.worker_node(send.peer), send.bytes, 1, -1});
      break;
  }
  return flows;
}

void validate(const SyncPlan& plan) {
  const auto fail = [&](std::size_t i, const std::string& what) {
    throw std::logic_error("plan '" + plan.strategy + "' task " + std::to_string(i) + " (" +
                           plan.tasks[i].display_label() + "): " + what);
  };
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const Task& t = plan.tasks[i];
    for (const Dep& d : t.deps) {
      if (d.task >= plan.tasks.size()) fail(i, "dependency out of range");
      if (d.lag == 0 && d.task >= i) fail(i, "same-iteration dependency is not earlier");
    }
    const bool needs_tensor = t.pattern == FlowPattern::to_shards ||
                              t.pattern == FlowPattern::from_shards || t.scope == Scope::shard;
    if (needs_tensor && (t.tensor < 0 || std::size_t(t.tensor) >= plan.tensors.size()))
      fail(i, "tensor index invalid");
    if (t.duration_s < 0 || t.bytes < 0 || t.scale <= 0 || t.chunks < 1) fail(i, "negative amount");
    const ResourceInfo& res = info(t.resource);
    if (t.scope != res.scope) fail(i, std::string("tasks on ") + res.name + " have another scope");
    if ((res.amount == Amount::flows) != (t.pattern != FlowPattern::none))
      fail(i, "network tasks, and only they, have a flow pattern");
    if (t.layer >= int(plan.layers.size())) fail(i, "layer index invalid");
    if (!runs_on(t.resource, t.step))
      fail(i, std::string("step ") + to_string(t.step) + " does not run on " + to_string(t.resource));
    if (res.carries != (t.carries != Payload::none)) fail(i, "copies and flows, and only they, carry a payload");
  }
  for (const Tensor& tensor : plan.tensors)
    for (const Slice& s : tensor.slices)
      if (s.shard < 0 || s.shard >= plan.num_shards())
        throw std::logic_error("plan '" + plan.strategy + "': slice on a shard that does not exist");
  const std::size_t k = std::size_t(std::max(1, plan.iterations));
  if (plan.stragglers.slowdown.size() != k || plan.stragglers.dropped.size() != k)
    throw std::logic_error("plan '" + plan.strategy + "': stragglers not drawn for every iteration");
}

}  // namespace possim
