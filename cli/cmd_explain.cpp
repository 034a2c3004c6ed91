// possim explain SCENARIO: for one point, each parameter layer's scheme, the Table 1
// costs behind the choice, and when its sync ran in a steady iteration.
#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/input/scenario.hpp"
#include "model/plan/sync_plan.hpp"
#include "model/run/sweep.hpp"
#include "model/strategies/strategy.hpp"
#include "model/input/text.hpp"

namespace possim::cli {

namespace {

// The bytes one task of a layer's sync moves per iteration (0 for work that is not bytes):
// a slice-hashed push or pull moves its tensor, a broadcast its bytes to each peer, a copy,
// intra-node task or collective its own bytes.
double task_bytes(const SyncPlan& plan, const Task& t) {
  if (t.tensor >= 0 && std::size_t(t.tensor) < plan.tensors.size() &&
      (t.pattern == FlowPattern::to_shards || t.pattern == FlowPattern::from_shards))
    return plan.tensors[std::size_t(t.tensor)].bytes * t.scale;
  if (t.pattern == FlowPattern::to_peers) return t.bytes * (plan.workers - 1);
  if (t.pattern == FlowPattern::collective && plan.workers < 2) return 0;  // no node to reduce with
  return t.bytes;
}

// Work a plan writes that occupies nothing at this point: a synchronization marker, a
// broadcast with no peer to receive it, an empty copy or GEMM (SFB's at one node).
bool idle_task(const SyncPlan& plan, const Task& t) {
  if (t.resource == Resource::none) return true;
  if (t.pattern == FlowPattern::to_peers && plan.workers < 2) return true;
  // A collective on one node moves nothing; it shows only while its launch costs time.
  if (t.pattern == FlowPattern::collective && plan.workers < 2) return plan.rates.collective_launch_s <= 0;
  if (t.resource == Resource::gpu) return t.duration_s <= 0;
  return t.pattern == FlowPattern::none && t.tensor < 0 && t.resource != Resource::server_cpu &&
         t.resource != Resource::host_cpu && t.bytes <= 0;
}

// What each layer's sync does in the plan this point runs, by layer index: its steps in the
// plan's order, each once, with the bytes its tasks move per iteration (a gather's: every
// other GPU's to the leader). Read from the SyncPlan, so that one node of several GPUs shows
// the gather, copies and apply the run charges, not "nothing to exchange".
std::vector<std::string> sync_steps(const SyncPlan& plan) {
  std::vector<std::vector<std::pair<Step, double>>> steps(plan.layers.size());
  for (const Task& t : plan.tasks) {
    if (t.pass() || t.layer < 0 || std::size_t(t.layer) >= plan.layers.size() || idle_task(plan, t)) continue;
    auto& list = steps[std::size_t(t.layer)];
    const auto it = std::find_if(list.begin(), list.end(), [&](const auto& x) { return x.first == t.step; });
    if (it == list.end()) list.emplace_back(t.step, task_bytes(plan, t));
    else it->second += task_bytes(plan, t);
  }
  std::vector<std::string> out(plan.layers.size());
  for (std::size_t l = 0; l < steps.size(); ++l) {
    for (const auto& [step, bytes] : steps[l])
      out[l] += (out[l].empty() ? "" : " ") + std::string(to_string(step)) + (bytes > 0 ? " " + si(bytes, "B") : "");
    if (out[l].empty()) out[l] = "-";
  }
  return out;
}

// Where the steady iteration goes, by layer: milliseconds of each share (only the shares
// the point has); what no parameter layer holds (layers without parameters, barriers)
// is one row, so the rows add up to the iteration.
void print_breakdown(const Result& r, std::ostream& out) {
  std::vector<TimeShare> shares;
  for (std::size_t i = 0; i < kTimeShares; ++i)
    if (r.breakdown.s[i] > 0) shares.push_back(TimeShare(i));
  std::vector<std::string> head = {"layer"};
  for (TimeShare x : shares) head.push_back(std::string(short_name(x)) + " ms");
  head.push_back("total ms");
  Table t(head);
  const auto row = [&](const std::string& name, const Breakdown& b) {
    std::vector<std::string> cells = {name};
    for (TimeShare x : shares) cells.push_back(fixed(b[x] * 1e3, 2));
    cells.push_back(fixed(b.total() * 1e3, 2));
    t.add(cells);
  };
  Breakdown rest = r.breakdown;
  for (const LayerResult& l : r.layers) {
    row(l.name, l.breakdown);
    Breakdown minus = l.breakdown;
    minus *= -1;
    rest += minus;
  }
  row("other", rest);
  t.separator();
  row("iteration", r.breakdown);
  out << "\nwhere a steady iteration goes: what worker 0's GPU runs, and what it waits for when "
         "idle, by the layer of the task\n";
  t.print(out);
  for (std::size_t i = 0; i < shares.size(); ++i)
    out << (i ? ", " : "") << short_name(shares[i]) << " = " << share_meaning(shares[i]);
  out << "; total ms = the row's sum; other = tasks of no parameter layer (layers without parameters, the "
         "step's barrier)\n";
}

}  // namespace

int cmd_explain(const std::vector<std::string>& args) {
  handle_interrupts();
  po::options_description desc("options");
  std::string scenario_path, strategy, engine_name;
  int nodes = 0;
  double gbps = 0;
  desc.add_options()("scenario", po::value(&scenario_path)->required(), "scenario JSON file");
  add_point_options(desc, strategy, nodes, gbps);
  add_engine_option(desc, engine_name);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse("explain", args, desc, pos, vm, "SCENARIO [--strategy S] [--nodes N] [--gbps B]"))
    return 0;

  const Scenario s = load_scenario(scenario_path);
  require_one_model(s, "possim explain (one point)");
  const SweepPoint p = choose_point(s, vm, strategy, nodes, gbps);
  const auto engine = make_engine(engine_name, engine_request());
  const EngineInfo& info = engine_named(engine_name);
  if (const std::string caveat = info.caveat ? info.caveat(s) : ""; !caveat.empty())
    std::cerr << "possim: warning: " << caveat << "\n";
  const Result r = run_point(s, p, *engine, single_gpu_images_per_s(s, *engine));
  const std::vector<std::string> steps = sync_steps(make_plan(p.strategy, plan_request(s, p)));  // the plan r ran

  std::cout << s.network.name << ", " << strategy << ", " << counted(nodes, "node") << " x "
            << s.gpus_per_node << " GPU, " << fixed(gbps, 1) << " Gbit/s, batch " << s.batch_per_gpu
            << "/GPU, " << counted(r.cluster.server_shards, "server shard") << " ("
            << to_string(r.cluster.placement) << ")\n";
  std::cout << "compute: " << s.profile.compute_source(s.network, s.batch_per_gpu) << "\n";
  std::cout << "\n";
  Table t({"layer", "kind", "params", "scheme", "PS params/node", "SFB params/node", "sync start s", "sync end s",
           "sync steps (plan)", "why"});
  for (const LayerResult& l : r.layers)
    t.add({l.name, l.kind, si(l.params, ""), l.scheme, si(l.ps_params, ""),
           l.kind == "fc" ? si(l.sfb_params, "") : "-",
           l.sync_start_s >= 0 ? fixed(l.sync_start_s, 4) : "-",
           l.sync_end_s >= 0 ? fixed(l.sync_end_s, 4) : "-", steps.at(std::size_t(l.layer)), l.why});
  t.print(std::cout);
  std::cout << "layer, kind = the parameter layer and its kind (conv, fc, ...); params = its parameter count; "
               "scheme = how its gradients are synced (ps: through the server shards; sfb: sufficient factors "
               "broadcast to every peer; adam: factors to the owning shard; onebit: 1-bit quantized through the "
               "servers; local: no sync; allreduce, hier_allreduce, tree_allreduce: a collective); "
               "PS params/node, SFB params/node = Table 1's cost of each scheme: parameter values (not bytes) "
               "through a worker node's NIC per iteration, 0 where no other node takes part (SFB: - for a layer that "
               "is not FC, which has no sufficient factors); "
               "sync start s, sync end s = when the layer's first sync task started and its last ended, from a "
               "steady iteration's start; "
               "sync steps (plan) = what the plan has the layer's sync do, in order, with the bytes each step "
               "moves per iteration (gather, scatter: all of a node's other GPUs' to or from the leader; a "
               "collective: the tensor it reduces); "
               "why = the rule that chose the scheme, with the figures it compared\n";
  print_breakdown(r, std::cout);
  std::cout << "\niteration " << fixed(r.iteration_s, 4) << " s, " << fixed(r.images_per_s, 1)
            << " images/s, speedup " << fixed(r.speedup, 2) << "x, GPU stall " << percent(r.stall_share())
            << ", busiest node sends " << si(r.sent_bytes_max, "B") << " and receives "
            << si(r.received_bytes_max, "B") << " per iteration\n";
  std::cout << "GPU stall = the share of the iteration worker 0's GPU is idle: the iteration less its "
               "busy time (compute, SF rebuild, quantization), as possim run's stall column\n";
  return 0;
}

}  // namespace possim::cli
