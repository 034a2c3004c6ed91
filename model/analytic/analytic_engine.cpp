#include "model/analytic/analytic_engine.hpp"

#include <algorithm>

#include "model/analytic/repeat.hpp"
#include "model/analytic/schedule.hpp"
#include "model/input/error.hpp"
#include "model/plan/interference.hpp"
#include "model/plan/task_cost.hpp"
#include "model/plan/work_count.hpp"

namespace possim {

AnalyticCost analytic_cost(const SyncPlan& plan, const Task& t, const NodeLoad& l) {
  const Rates& r = plan.rates;
  if (t.resource == Resource::server_cpu) {
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
  if (t.resource != Resource::network) {
    const double d = resource_seconds(r, t);
    return {d, d};
  }
  // The busiest node's bytes, or a collective's bytes in series on its critical path.
  const double busiest = std::max({l.tx_bytes_max, l.rx_bytes_max, l.path_bytes});
  if (busiest <= 0) return {0, 0, 0};  // everything stayed on the host
  const double mean = std::max(l.tx_bytes_mean, l.rx_bytes_mean);
  // Latency and per-message software cost delay the task but use no bandwidth.
  const double after = r.latency_s * l.sequential_steps + l.messages_max * r.per_message_s + launch_seconds(r, t);
  const double rate = plan.nic_bytes_per_s();
  return {busiest / rate + after, mean / rate, after};
}

namespace analytic {

namespace {

Held resources(const SyncPlan& plan, const Task& t, const NodeLoad& l) {
  Held h;
  const bool colocated = plan.cluster.placement == ServerPlacement::colocated;
  const auto tx = [&](Role r) { return r == Role::server && !colocated ? server_tx : worker_tx; };
  const auto rx = [&](Role r) { return r == Role::server && !colocated ? server_rx : worker_rx; };
  switch (t.resource) {
    case Resource::gpu: h.res[0] = gpu; break;
    case Resource::pcie_d2h: h.res[0] = pcie_d2h; break;
    case Resource::pcie_h2d: h.res[0] = pcie_h2d; break;
    case Resource::intra_node: h.res[0] = d2d; break;
    case Resource::server_cpu: h.res[0] = server_cpu; break;
    case Resource::network:
      h.res[0] = tx(l.tx_role);
      h.res[1] = rx(l.rx_role);
      break;
    case Resource::none: break;
    // The worker's node's CPU: the one its shard applies on when shards are colocated.
    case Resource::host_cpu: h.res[0] = colocated ? server_cpu : host_cpu; break;
  }
  return h;
}

const char* track_of(int res) {
  static const char* names[kNumRes] = {"GPU",           "PCIe d2h",      "PCIe h2d",
                                       "GPU-GPU",       "server CPU",    "worker NIC tx",
                                       "worker NIC rx", "server NIC tx", "server NIC rx", "host CPU",
                                       "busiest NIC tx", "busiest NIC rx", "busiest CPU"};
  return res >= 0 && res < kNumRes ? names[res] : "sync";
}

// Where the busiest node carries more than the mean node, each task's work there.
void find_hot_node(const SyncPlan& plan, Prepared& p) {
  if (std::max(p.per_node.tx_max(), p.per_node.rx_max()) <= p.node_bytes_mean * (1 + 1e-9)) return;
  p.hot_node = p.per_node.busiest_node();
  p.hot.assign(plan.tasks.size(), HotWork{});
  const double rate = plan.nic_bytes_per_s();
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const Task& t = plan.tasks[i];
    HotWork& h = p.hot[i];
    if (t.resource == Resource::network) {
      const auto [tx, rx] = node_bytes(plan, t, p.load[i], p.hot_node);
      h.tx_s = tx / rate;
      h.rx_s = rx / rate;
    } else if (t.resource == Resource::server_cpu) {
      for (const Slice& s : plan.tensors.at(std::size_t(t.tensor)).slices)
        if (plan.shard_node(s.shard) == p.hot_node) {
          h.cpu_fixed_s += t.duration_s;
          h.cpu_bytes_s += s.bytes * plan.workers / plan.rates.server_apply_bytes_per_s;
        }
    }
  }
}

// A collective's rounds, each its bytes then its latency. Where the busiest node is
// modelled, collectives stay whole: their parts of work on that node would have to be cut
// alike, which is not done.
void cut_collectives(const SyncPlan& plan, Prepared& p) {
  if (p.hot_node >= 0) return;
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const Task& t = plan.tasks[i];
    if (t.resource != Resource::network || t.pattern != FlowPattern::collective || p.hold[i] <= 0 || p.after[i] <= 0)
      continue;
    const int rounds = std::min(p.load[i].sequential_steps, kMaxCollectiveRounds);
    if (rounds < 2) continue;
    if (p.rounds.empty()) p.rounds.assign(plan.tasks.size(), 1);
    p.rounds[i] = std::uint8_t(rounds);
  }
}

}  // namespace

Prepared prepare(const SyncPlan& plan) {
  const std::size_t n = plan.tasks.size();
  Prepared p{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n), std::vector<Held>(n),
             TemplateDependents(plan), std::vector<NodeLoad>(n), NodeBytes(plan.workers), 0, -1, {}, {}};
  const int nodes = plan.cluster.total_nodes();
  for (std::size_t i = 0; i < n; ++i) {
    const Task& t = plan.tasks[i];
    if (t.resource == Resource::network) {
      p.load[i] = node_load(plan, t, &p.per_node);
      p.node_bytes_mean += p.load[i].total_bytes / nodes;
    }
    const AnalyticCost c = analytic_cost(plan, t, p.load[i]);
    p.dur[i] = c.duration_s;
    p.hold[i] = c.hold_s;
    p.after[i] = c.after_s;
    p.held[i] = resources(plan, t, p.load[i]);
  }
  work::count(n);
  find_hot_node(plan, p);
  cut_collectives(plan, p);
  return p;
}

std::vector<IterationInput> iteration_inputs(const SyncPlan& plan, int k) {
  std::vector<IterationInput> in(std::size_t(k), IterationInput{});
  for (int t = 0; t < k; ++t) {
    const auto& slow = plan.stragglers.slowdown[std::size_t(t)];
    const auto& dropped = plan.stragglers.dropped[std::size_t(t)];
    double worst = 0;
    for (std::size_t w = 0; w < slow.size(); ++w)
      if (!dropped[w]) worst = std::max(worst, slow[w]);
    in[std::size_t(t)].slowdown = worst > 0 ? worst : 1.0;
    in[std::size_t(t)].active_share = double(plan.stragglers.active(t)) / std::max(1, plan.workers);
  }
  return in;
}

}  // namespace analytic

namespace {

using namespace analytic;

bool interferes(const SyncPlan& plan) {
  return plan.rates.interferes() && std::any_of(plan.tasks.begin(), plan.tasks.end(), runs_comm_kernel);
}

void add_timeline(const SyncPlan& plan, const Prepared& p, const Repeated& s, Result& res) {
  for (int t = 0; t < s.iterations(); ++t)
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
      const Task& task = plan.tasks[i];
      const double start = s.start(t, i), dur = s.finish(t, i) - start;
      if (dur <= 0) continue;
      const std::string layer = task.layer >= 0 ? plan.layers[std::size_t(task.layer)].name : "";
      for (int r : p.held[i].res) {
        if (r < 0) continue;
        // The representative is worker 0; a shard's work and the server's NICs belong to no
        // worker (a worker's own work on its node's CPU does).
        const int worker = task.scope != Scope::worker || r == server_tx || r == server_rx ? -1 : 0;
        res.timeline.push_back(TimelineEvent{std::string("representative ") + track_of(r), task.display_label() + (" " + layer),
                                             to_string(task.step), start, dur, t, task.layer, worker});
        if (task.bytes > 0) res.timeline.back().bytes = task.bytes;
        else if (task.tensor >= 0) res.timeline.back().bytes = plan.tensors[std::size_t(task.tensor)].bytes;
      }
    }
}

}  // namespace

double interference_fixed_point_gap(const SyncPlan& plan) {
  using namespace analytic;
  const Prepared p = prepare(plan);
  const std::vector<IterationInput> inputs = iteration_inputs(plan, std::max(1, plan.iterations));
  return fluid_pass_gap(plan, p, inputs, fluid_schedule(plan, p, inputs));
}

std::string analytic_imbalance_warning(std::size_t flagged, std::size_t points) {
  return "the analytic engine's representative node carries the mean node's traffic, and at " +
         std::to_string(flagged) + " of " + std::to_string(points) +
         " points the busiest node carries more, or the servers' apply holds the GPU, while the GPU waits: these "
         "may differ from SimGrid by more than 3% "
         "(bench/results/analytic_agreement.md); check them with --engine simgrid";
}

Result AnalyticEngine::run(const SyncPlan& plan, const RunOptions& opt) const {
  using namespace analytic;
  const int k = std::max(1, plan.iterations);
  // Under SSP, workers slowed differently drift apart: one representative cannot stand
  // for them.
  if (plan.consistency == Consistency::ssp && !plan.undisturbed())
    throw InputError("the analytic engine cannot run stragglers under SSP (workers drift apart; one "
                     "representative worker cannot stand for them): use --engine simgrid");
  const Prepared p = prepare(plan);
  const std::vector<IterationInput> inputs = iteration_inputs(plan, k);
  const bool interfered = interferes(plan);
  const Repeated s(plan, p, inputs, !all_iterations_);

  std::vector<double> ends;
  for (int t = 0; t < k; ++t) ends.push_back(s.end(t));
  Result res = begin_result(plan, name(), std::move(ends));
  res.simulated_iterations = s.scheduled();
  // Busy: GPU time per iteration; averaged over the iterations when stragglers or
  // interference vary it.
  const int busy_iterations = plan.undisturbed() && !interfered ? 1 : k;
  for (int t = 0; t < busy_iterations; ++t)
    for (std::size_t i = 0; i < plan.tasks.size(); ++i)
      if (p.held[i].res[0] == gpu)
        res.gpu_busy_s += interfered ? s.finish(t, i) - s.start(t, i)  // slowed where overlapped
                                     : instance_cost(plan, p, i, inputs[std::size_t(t)]).first;
  res.gpu_busy_s /= busy_iterations;
  res.gpu_stall_s = std::max(0.0, res.iteration_s - res.gpu_busy_s);

  res.sent_bytes_mean = res.received_bytes_mean = p.node_bytes_mean;
  res.sent_bytes_max = p.per_node.tx_max();
  res.received_bytes_max = p.per_node.rx_max();
  if (!opt.iteration_only) {
    fill_layer_rows(plan, res, [&](std::size_t i) { return std::make_pair(s.start(k - 1, i), s.finish(k - 1, i)); });
    fill_breakdown(plan, s.schedule().path, s.sources(), res);
  }
  if (opt.timeline) add_timeline(plan, p, s, res);
  return res;
}

}  // namespace possim
