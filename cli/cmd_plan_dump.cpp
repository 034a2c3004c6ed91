// possim plan-dump SCENARIO: one point's SyncPlan as JSON (model/run/plan_json.hpp), the
// same plan every engine runs; possim run-plan PLAN: a plan file run by any engine, so that
// a hand-written or edited plan is a question possim answers (tests/golden/ holds some).
#include <iostream>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/options.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/run/plan_json.hpp"
#include "model/run/output_file.hpp"
#include "model/run/result_io.hpp"
#include "model/strategies/strategy.hpp"

namespace possim::cli {

int cmd_plan_dump(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::string scenario_path, strategy, out;
  int nodes = 0;
  double gbps = 0;
  desc.add_options()("scenario", po::value(&scenario_path)->required(), "scenario JSON file")(
      "out,o", po::value(&out), "write the plan here (default: standard output)");
  add_point_options(desc, strategy, nodes, gbps);
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse("plan-dump", args, desc, pos, vm, "SCENARIO [--strategy S] [--nodes N] [--gbps B] [--out FILE]"))
    return 0;
  if (vm.count("out") && out.empty()) throw InputError("--out", "", "is empty", "a file name");
  if (!out.empty()) check_output_file(out, "--out");
  const Scenario s = load_scenario(scenario_path);
  require_one_model(s, "possim plan-dump");
  const SweepPoint p = choose_point(s, vm, strategy, nodes, gbps);
  const std::string text = plan_to_json(make_plan(p.strategy, plan_request(s, p))).dump(1) + "\n";
  if (out.empty())
    std::cout << text;
  else
    write_file_atomic(out, text, "--out");
  return 0;
}

int cmd_run_plan(const std::vector<std::string>& args) {
  po::options_description desc("options");
  std::string plan_path, engine_name, json_out;
  bool all_iterations = false;
  desc.add_options()("plan", po::value(&plan_path)->required(), "plan JSON file (possim plan-dump)")(
      "json", po::value(&json_out), "write the result here as JSON");
  add_engine_option(desc, engine_name);
  add_all_iterations_option(desc, all_iterations);
  po::positional_options_description pos;
  pos.add("plan", 1);
  po::variables_map vm;
  if (!parse("run-plan", args, desc, pos, vm, "PLAN [--engine E] [--json FILE]")) return 0;
  if (vm.count("json") && json_out.empty()) throw InputError("--json", "", "is empty", "a file name");
  if (!json_out.empty()) check_output_file(json_out, "--json");
  const SyncPlan plan = load_plan(plan_path);
  EngineRequest request = engine_request();
  request.all_iterations = all_iterations;
  const auto engine = make_engine(engine_name, request);
  const Result r = engine->run(plan, RunOptions{});
  Table t({"engine", "strategy", "nodes", "Gbit/s", "iterations", "s/iter"});
  t.add({r.engine, r.strategy, std::to_string(r.cluster.nodes), fixed(r.cluster.nic_gbps, 1),
         std::to_string(r.iterations), fixed(r.iteration_s, 6)});
  t.print(std::cout);
  if (!json_out.empty()) write_file_atomic(json_out, result_to_json(r).dump(1) + "\n", "--json");
  return 0;
}

}  // namespace possim::cli
