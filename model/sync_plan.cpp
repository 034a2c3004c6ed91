#include "model/sync_plan.hpp"

#include <stdexcept>
#include <string>

namespace possim {

const char* to_string(TaskKind k) {
  switch (k) {
    case TaskKind::forward: return "forward";
    case TaskKind::backward: return "backward";
    case TaskKind::quantize: return "quantize";
    case TaskKind::rebuild: return "rebuild";
    case TaskKind::copy_d2h: return "copy_d2h";
    case TaskKind::copy_h2d: return "copy_h2d";
    case TaskKind::gather: return "gather";
    case TaskKind::scatter: return "scatter";
    case TaskKind::push: return "push";
    case TaskKind::pull: return "pull";
    case TaskKind::broadcast: return "broadcast";
    case TaskKind::allreduce: return "allreduce";
    case TaskKind::apply: return "apply";
    case TaskKind::barrier: return "barrier";
  }
  return "?";
}

std::vector<Flow> expand_flows(const SyncPlan& plan, const Task& t, int w) {
  std::vector<Flow> flows;
  const int me = plan.worker_node(w);
  switch (t.pattern) {
    case FlowPattern::none: break;
    case FlowPattern::to_shards:
    case FlowPattern::from_shards: {
      const Tensor& tensor = plan.tensors.at(std::size_t(t.tensor));
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
      for (int p = 0; p < plan.workers; ++p) {
        if (p == w) continue;
        flows.push_back(Flow{me, plan.worker_node(p), t.bytes, 1, -1});
      }
      break;
    case FlowPattern::ring: {
      const int n = plan.workers;
      if (n < 2) break;
      const int next = plan.worker_node((w + 1) % n);
      for (int step = 0; step < 2 * (n - 1); ++step)
        flows.push_back(Flow{me, next, t.bytes / n, 1, -1});
      break;
    }
  }
  return flows;
}

void validate(const SyncPlan& plan) {
  const auto fail = [&](std::size_t i, const std::string& what) {
    throw std::logic_error("plan '" + plan.strategy + "' task " + std::to_string(i) + " (" +
                           to_string(plan.tasks[i].kind) + "): " + what);
  };
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const Task& t = plan.tasks[i];
    for (const Dep& d : t.deps) {
      if (d.task >= plan.tasks.size()) fail(i, "dependency out of range");
      if (d.lag == 0 && d.task >= i) fail(i, "same-iteration dependency is not earlier");
    }
    const bool needs_tensor = t.pattern == FlowPattern::to_shards ||
                              t.pattern == FlowPattern::from_shards ||
                              t.kind == TaskKind::apply;
    if (needs_tensor && (t.tensor < 0 || std::size_t(t.tensor) >= plan.tensors.size()))
      fail(i, "tensor index invalid");
    if (t.duration_s < 0 || t.bytes < 0 || t.scale <= 0) fail(i, "negative amount");
    if ((t.scope == Scope::shard) != (t.kind == TaskKind::apply))
      fail(i, "only apply tasks run on shards");
  }
  for (const Tensor& tensor : plan.tensors)
    for (const Slice& s : tensor.slices)
      if (s.shard < 0 || s.shard >= plan.num_shards())
        throw std::logic_error("plan '" + plan.strategy + "': slice on a shard that does not exist");
}

}  // namespace possim
