#include "model/analytic/analytic_engine.hpp"

#include <algorithm>
#include <array>
#include <queue>
#include <tuple>

#include "model/node_load.hpp"

namespace possim {

namespace {

enum Res { gpu, pcie_d2h, pcie_h2d, d2d, server_cpu, worker_tx, worker_rx, server_tx, server_rx, kNumRes };

// Resources a task holds, as a small list (at most two: a NIC tx and a NIC rx).
struct Held {
  std::array<int, 2> res{{-1, -1}};
};

Held resources(const SyncPlan& plan, const Task& t, const NodeLoad& l) {
  Held h;
  const bool colocated = plan.cluster.placement == ServerPlacement::colocated;
  const auto tx = [&](Role r) { return r == Role::server && !colocated ? server_tx : worker_tx; };
  const auto rx = [&](Role r) { return r == Role::server && !colocated ? server_rx : worker_rx; };
  switch (t.kind) {
    case TaskKind::forward:
    case TaskKind::backward:
    case TaskKind::quantize:
    case TaskKind::rebuild: h.res[0] = gpu; break;
    case TaskKind::copy_d2h: h.res[0] = pcie_d2h; break;
    case TaskKind::copy_h2d: h.res[0] = pcie_h2d; break;
    case TaskKind::gather:
    case TaskKind::scatter: h.res[0] = d2d; break;
    case TaskKind::apply: h.res[0] = server_cpu; break;
    case TaskKind::push:
    case TaskKind::pull:
    case TaskKind::broadcast:
    case TaskKind::allreduce:
      h.res[0] = tx(l.tx_role);
      h.res[1] = rx(l.rx_role);
      break;
    case TaskKind::barrier: break;
  }
  return h;
}

const char* track_of(int res) {
  static const char* names[kNumRes] = {"GPU",           "PCIe d2h",      "PCIe h2d",
                                       "GPU-GPU",       "server CPU",    "worker NIC tx",
                                       "worker NIC rx", "server NIC tx", "server NIC rx"};
  return res >= 0 && res < kNumRes ? names[res] : "sync";
}

}  // namespace

static double compute_like_duration(const SyncPlan& plan, const Task& t) {
  const Rates& r = plan.rates;
  switch (t.kind) {
    case TaskKind::forward:
    case TaskKind::backward:
    case TaskKind::quantize:
    case TaskKind::rebuild: return t.duration_s;
    case TaskKind::copy_d2h:
    case TaskKind::copy_h2d: return t.bytes > 0 ? r.pcie_latency_s + t.bytes / r.pcie_bytes_per_s : 0;
    case TaskKind::gather:
    case TaskKind::scatter: return t.bytes / r.d2d_bytes_per_s;
    default: return 0;
  }
}

AnalyticCost analytic_cost(const SyncPlan& plan, const Task& t, const NodeLoad& l) {
  const Rates& r = plan.rates;
  if (t.kind == TaskKind::apply) {
    // Slices of one tensor sit on distinct shards and are applied in parallel; the
    // representative server CPU is held for the mean shard's share.
    double busiest = 0, total = 0;
    for (const Slice& s : plan.tensors.at(std::size_t(t.tensor)).slices) {
      busiest = std::max(busiest, s.bytes);
      total += s.bytes;
    }
    const double per_byte = plan.workers / r.server_apply_bytes_per_s;
    return {t.duration_s + busiest * per_byte, t.duration_s + total / plan.num_shards() * per_byte};
  }
  if (t.pattern == FlowPattern::none) {
    const double d = compute_like_duration(plan, t);
    return {d, d};
  }
  const double busiest = std::max(l.tx_bytes_max, l.rx_bytes_max);
  if (busiest <= 0) return {0, 0};  // everything stayed on the host
  const double fixed = r.latency_s * l.sequential_steps;
  const double mean = std::max(l.tx_bytes_mean, l.rx_bytes_mean);
  // Latency and per-message software cost delay the task but use no bandwidth.
  return {busiest / r.nic_bytes_per_s + fixed + l.messages_max * r.per_message_s,
          mean / r.nic_bytes_per_s};
}

Result AnalyticEngine::run(const SyncPlan& plan, const Network& net, const RunOptions& opt) const {
  const std::size_t n = plan.tasks.size();
  const int k = std::max(1, plan.iterations);

  // Per template task: duration, resources, dependents (with lag).
  std::vector<double> dur(n), hold(n);
  std::vector<Held> held(n);
  std::vector<std::vector<Dep>> dependents(n);
  std::vector<NodeLoad> load(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (plan.tasks[i].pattern != FlowPattern::none) load[i] = node_load(plan, plan.tasks[i]);
    const AnalyticCost c = analytic_cost(plan, plan.tasks[i], load[i]);
    dur[i] = c.duration_s;
    hold[i] = c.hold_s;
    held[i] = resources(plan, plan.tasks[i], load[i]);
    for (const Dep& d : plan.tasks[i].deps) dependents[d.task].push_back(Dep{std::uint32_t(i), d.lag});
  }

  const auto id = [n](int t, std::size_t i) { return std::size_t(t) * n + i; };
  std::vector<int> pending(n * std::size_t(k));
  std::vector<double> ready(n * std::size_t(k), 0.0), start(n * std::size_t(k), 0.0),
      finish(n * std::size_t(k), 0.0);
  using Item = std::tuple<double, int, std::uint32_t>;  // ready time, iteration, task
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
  for (int t = 0; t < k; ++t)
    for (std::size_t i = 0; i < n; ++i) {
      int p = 0;
      for (const Dep& d : plan.tasks[i].deps)
        if (t - int(d.lag) >= 0) ++p;
      pending[id(t, i)] = p;
      if (p == 0) heap.emplace(0.0, t, std::uint32_t(i));
    }

  std::array<double, kNumRes> free_at{};
  while (!heap.empty()) {
    const auto [r, t, i] = heap.top();
    heap.pop();
    double s = r;
    for (int res : held[i].res)
      if (res >= 0) s = std::max(s, free_at[std::size_t(res)]);
    const double f = s + dur[i];
    for (int res : held[i].res)
      if (res >= 0) free_at[std::size_t(res)] = s + hold[i];
    start[id(t, i)] = s;
    finish[id(t, i)] = f;
    for (const Dep& d : dependents[i]) {
      const int u = t + int(d.lag);
      if (u >= k) continue;
      const std::size_t j = id(u, d.task);
      ready[j] = std::max(ready[j], f);
      if (--pending[j] == 0) heap.emplace(ready[j], u, d.task);
    }
  }

  std::vector<double> ends;
  for (int t = 0; t < k; ++t) {
    double end = 0;
    for (std::size_t i = 0; i < n; ++i) end = std::max(end, finish[id(t, i)]);
    ends.push_back(end);
  }
  Result res = begin_result(plan, net, name(), std::move(ends));

  for (std::size_t i = 0; i < n; ++i)
    if (held[i].res[0] == gpu) res.gpu_busy_s += dur[i];
  res.gpu_stall_s = std::max(0.0, res.iteration_s - res.gpu_busy_s);

  const int nodes = plan.cluster.total_nodes();
  for (std::size_t i = 0; i < n; ++i) {
    if (plan.tasks[i].pattern == FlowPattern::none) continue;
    const NodeLoad& l = load[i];
    res.sent_bytes_max += l.tx_bytes_max;
    res.received_bytes_max += l.rx_bytes_max;
    res.sent_bytes_mean += l.total_bytes / nodes;
    res.received_bytes_mean += l.total_bytes / nodes;
  }

  const int last = k - 1;
  fill_layer_rows(plan, net, res, [&](std::size_t i) {
    return std::make_pair(start[id(last, i)], finish[id(last, i)]);
  });

  if (opt.timeline) {
    for (int t = 0; t < k; ++t)
      for (std::size_t i = 0; i < n; ++i) {
        const Task& task = plan.tasks[i];
        if (dur[i] <= 0) continue;
        const std::string layer = task.layer >= 0 ? net.layers[std::size_t(task.layer)].name : "";
        for (int r : held[i].res) {
          if (r < 0) continue;
          // The representative is worker 0; the server's tracks belong to no worker.
          const int worker = r == server_cpu || r == server_tx || r == server_rx ? -1 : 0;
          res.timeline.push_back(TimelineEvent{std::string("representative ") + track_of(r),
                                               std::string(to_string(task.kind)) + " " + layer,
                                               to_string(task.kind), start[id(t, i)], dur[i], t,
                                               task.layer, worker});
        }
      }
  }
  return res;
}

}  // namespace possim
