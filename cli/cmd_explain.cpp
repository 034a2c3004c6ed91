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
#include "model/run/sweep.hpp"
#include "model/strategies/strategy.hpp"

namespace possim::cli {

namespace {

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
  out << "\n";
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
  const SweepPoint p = choose_point(s, vm, strategy, nodes, gbps);
  const auto engine = make_engine(engine_name, engine_request());
  const EngineInfo& info = engine_named(engine_name);
  if (const std::string caveat = info.caveat ? info.caveat(s) : ""; !caveat.empty())
    std::cerr << "possim: warning: " << caveat << "\n";
  const Result r = run_point(s, p, *engine, single_gpu_images_per_s(s, *engine));

  std::cout << s.network.name << ", " << strategy << ", " << nodes << " nodes x "
            << s.gpus_per_node << " GPU, " << fixed(gbps, 1) << " Gbit/s, batch " << s.batch_per_gpu
            << "/GPU, " << r.cluster.server_shards << " server shards ("
            << to_string(r.cluster.placement) << ")\n";
  std::cout << "compute: " << s.profile.compute_source(s.network, s.batch_per_gpu) << "\n";
  std::cout << "costs are Table 1 parameters per iteration through the busiest node; "
               "sync times are from a steady iteration's start\n\n";
  Table t({"layer", "kind", "params", "scheme", "PS cost", "SFB cost", "sync start s", "sync end s", "why"});
  for (const LayerResult& l : r.layers)
    t.add({l.name, l.kind, si(l.params, ""), l.scheme, si(l.ps_params, ""),
           l.kind == "fc" ? si(l.sfb_params, "") : "-",
           l.sync_start_s >= 0 ? fixed(l.sync_start_s, 4) : "-",
           l.sync_end_s >= 0 ? fixed(l.sync_end_s, 4) : "-", l.why});
  t.print(std::cout);
  print_breakdown(r, std::cout);
  std::cout << "\niteration " << fixed(r.iteration_s, 4) << " s, " << fixed(r.images_per_s, 1)
            << " images/s, speedup " << fixed(r.speedup, 2) << "x, GPU stall " << percent(r.stall_share())
            << ", busiest node sends " << si(r.sent_bytes_max, "B") << " and receives "
            << si(r.received_bytes_max, "B") << " per iteration\n";
  return 0;
}

}  // namespace possim::cli
