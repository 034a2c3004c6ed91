#include "model/plan/plan_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "model/input/error.hpp"
#include "model/plan/collective.hpp"
#include "model/input/limits.hpp"
#include "model/plan/task_cost.hpp"

namespace possim {

namespace {

std::string g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

void check_rate(double v, const char* name, bool zero_ok) {
  if (!std::isfinite(v) || v < 0 || (!zero_ok && v == 0))
    throw InputError(std::string("rate ") + name + " is " + g(v) + ", not a finite " +
                     (zero_ok ? "non-negative" : "positive") +
                     " number (expected profile and cluster values that give finite rates)");
}

// The bytes a task instance moves through the busiest node's link, as an upper bound.
double busiest_bytes(const SyncPlan& plan, const Task& t) {
  const double workers = plan.workers;
  switch (t.pattern) {
    case FlowPattern::to_shards:
    case FlowPattern::from_shards:  // a shard exchanges its slice with every worker
      return plan.tensors.at(std::size_t(t.tensor)).bytes * t.scale * workers;
    case FlowPattern::to_peers: return t.bytes * (workers - 1);
    case FlowPattern::collective: return 2 * t.bytes;  // ring and tree: ~2 x the vector each way
    case FlowPattern::none: return 0;
  }
  return 0;
}

// Seconds the task takes on its resource, at most (one instance, no contention).
double task_seconds(const SyncPlan& plan, const Task& t) {
  const Rates& r = plan.rates;
  const ResourceInfo& res = info(t.resource);
  switch (res.amount) {
    case Amount::updates:
      return t.duration_s + plan.workers * plan.tensors.at(std::size_t(t.tensor)).bytes / (r.*res.rate);
    case Amount::flows: {
      double messages = 0;
      if (t.tensor >= 0)
        for (const Slice& s : plan.tensors[std::size_t(t.tensor)].slices) messages += s.pairs;
      return busiest_bytes(plan, t) / plan.nic_bytes_per_s() + messages * r.per_message_s +
             2.0 * plan.workers * (r.*res.latency) + launch_seconds(r, t);
    }
    default: return resource_seconds(r, t);
  }
}

[[noreturn]] void too_large(const char* what, std::uint64_t limit, const std::string& expected) {
  throw InputError(std::string("the SimGrid engine would simulate more than ") +
                   std::to_string(limit) + " " + what + ", its limit (expected " + expected + ")");
}

}  // namespace

void check_plan(const SyncPlan& plan) {
  const Rates& r = plan.rates;
  check_rate(plan.nic_bytes_per_s(), "nic_bytes_per_s", false);
  check_rate(r.pcie_bytes_per_s, "pcie_bytes_per_s", false);
  check_rate(r.d2d_bytes_per_s, "d2d_bytes_per_s", false);
  check_rate(r.server_apply_bytes_per_s, "server_apply_bytes_per_s", false);
  check_rate(r.latency_s, "latency_s", true);
  check_rate(r.pcie_latency_s, "pcie_latency_s", true);
  check_rate(r.per_message_s, "per_message_s", true);
  check_rate(r.collective_launch_s, "collective_launch_s", true);
  for (auto [v, name] : {std::pair{r.interference_kernel_slowdown, "interference_kernel_slowdown"},
                         std::pair{r.interference_comm_slowdown, "interference_comm_slowdown"}})
    if (!(v >= 1 && v <= 100))
      throw InputError(std::string("factor ") + name + " is " + g(v) +
                       ", not in [1, 100] (expected a slowdown: 1 for none)");
  check_rate(plan.per_iteration_s, "per_iteration_s", true);
  for (const Task& t : plan.tasks) {
    const double s = task_seconds(plan, t);
    if (std::isfinite(s) && s <= limits::kMaxTaskSeconds && std::isfinite(t.bytes)) continue;
    const std::string layer =
        t.layer >= 0 && std::size_t(t.layer) < plan.layers.size() ? " of layer '" + plan.layers[std::size_t(t.layer)].name + "'" : "";
    throw InputError(t.display_label() + layer + " would take " + g(s) +
                     " s, over the limit of " + g(limits::kMaxTaskSeconds) +
                     " s per task (expected layer FLOPs and parameters, and profile rates, that "
                     "give finite task times)");
  }
}

std::uint64_t SimulationSize::events() const {
  std::uint64_t flows = 0, e = 0;
  if (__builtin_mul_overflow(flows_per_iteration, iterations, &flows) || __builtin_add_overflow(instances, flows, &e))
    return UINT64_MAX;
  return e;
}

SimulationSize check_simulation_size(const SyncPlan& plan, bool flow_per_kv_pair, int group_workers) {
  const int group = group_workers > 0 ? group_workers : plan.workers;
  using u64 = std::uint64_t;
  const u64 workers = u64(plan.workers), iterations = u64(std::max(1, plan.iterations));
  u64 instances = 0, flows = 0;  // saturate at the maximum: over any limit
  const auto add = [](u64& sum, u64 a, u64 b) {
    u64 p = 0;
    if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(sum, p, &sum)) sum = UINT64_MAX;
  };
  for (const Task& t : plan.tasks) {
    const std::vector<Slice>* slices =
        t.tensor >= 0 ? &plan.tensors.at(std::size_t(t.tensor)).slices : nullptr;
    if (t.scope == Scope::cluster) add(instances, 1, iterations);
    else if (t.scope == Scope::shard) add(instances, slices->size(), iterations);
    else add(instances, workers, iterations);
    switch (t.pattern) {
      case FlowPattern::to_shards:
      case FlowPattern::from_shards: {
        u64 per_worker = 0;
        for (const Slice& s : *slices) per_worker += flow_per_kv_pair ? u64(std::max(1, s.pairs)) : 1;
        add(flows, workers, per_worker);
        break;
      }
      case FlowPattern::to_peers: add(flows, workers, workers - 1); break;
      case FlowPattern::collective:
        add(flows, workers, u64(collective_load(t.collective, group, t.bytes, t.chunks).messages_max));
        break;
      case FlowPattern::none: break;
    }
  }
  const std::string expected = "fewer nodes, layers or iterations, or --engine analytic";
  if (instances > limits::kMaxTaskInstances)
    too_large("task instances (tasks x workers x iterations)", limits::kMaxTaskInstances, expected);
  if (flows > limits::kMaxFlowsPerIteration)
    too_large("network flows per iteration", limits::kMaxFlowsPerIteration, expected);
  SimulationSize size;
  size.instances = instances;
  size.flows_per_iteration = flows;
  size.iterations = iterations;
  return size;
}

}  // namespace possim
