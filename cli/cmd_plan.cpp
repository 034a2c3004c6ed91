// possim plan SCENARIO: capacity planning over the scenario's models, strategies and node
// counts (model/planning/capacity.hpp):
//   default             the least NIC bandwidth keeping a scaling efficiency at each node count
//   --gbps B            the most nodes keeping it at B Gbit/s
//   --prices F --images-per-s X   the cheapest cluster (nodes x NIC) reaching X images/s
// Each answer names its binding resource from the time breakdown. Table on stdout; --json.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <atomic>
#include <mutex>
#include <sstream>
#include <thread>

#include "model/analytic/analytic_engine.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/intervals.hpp"
#include "cli/options.hpp"
#include "cli/progress.hpp"
#include "cli/table.hpp"
#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"
#include "model/planning/capacity.hpp"
#include "model/run/module_host.hpp"
#include "model/run/output_file.hpp"
#include "model/run/parallel.hpp"
#include "model/plan/transport.hpp"
#include "model/run/provenance.hpp"
#include "model/run/result_io.hpp"
#include "model/run/sweep.hpp"
#include "model/strategies/strategy.hpp"
#include "model/workload/zoo.hpp"

namespace possim::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A comma-separated list of an option: at least one item, none empty ('', ',,,' and
// 'a,,b' are mistakes, not an empty question).
std::vector<std::string> split(const std::string& s, const std::string& option, const std::string& expected) {
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const std::size_t comma = s.find(',', from);
    const std::string item = s.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (item.empty())
      throw InputError(option, "", s.empty() ? "is empty" : "'" + json_check::quoted(s) + "' has an empty item", expected);
    out.push_back(item);
    if (comma == std::string::npos) return out;
    from = comma + 1;
  }
}

std::vector<double> parse_grid(const std::string& text) {
  std::vector<double> grid;
  const std::string expected = "Gbit/s in [0.1, 3200], comma-separated";
  for (const std::string& item : split(text, "--grid", expected)) {
    const std::optional<double> v = parse_decimal(item);  // not "0x10", "inf"
    if (!v || !(*v >= limits::kMinNicGbps && *v <= limits::kMaxNicGbps))
      throw InputError("--grid", "", "'" + json_check::quoted(item) + "' is not a NIC speed", expected);
    grid.push_back(*v);
  }
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  return grid;
}

// A model to plan for and the batch per GPU it runs at, with why that batch.
struct ModelAt {
  std::string model;  // a zoo name or a layer JSON, as --models or the scenario gives it
  int batch_per_gpu = 0;
  std::string batch_source;  // "--batch", "the scenario's", "its paper batch", ...
};

// --batch wins; the scenario's own models run at its batch; another zoo model at its paper
// batch (the scenario's batch belongs to the scenario's model); a layer JSON, which has
// none, at the scenario's.
ModelAt model_at(const std::string& model, const Scenario& base, int batch_option) {
  if (batch_option > 0) return {model, batch_option, "--batch"};
  const auto& own = base.model_refs;
  if (std::find(own.begin(), own.end(), model) != own.end()) return {model, base.batch_per_gpu, "the scenario's"};
  if (const int paper = paper_batch_per_gpu(model); paper > 0)
    return {model, paper, "its paper batch; the scenario's, " + std::to_string(base.batch_per_gpu) + ", is for its own model"};
  return {model, base.batch_per_gpu, "the scenario's (a layer JSON has no paper batch)"};
}

// The scenario with its model, batch and strategies replaced, checked as any scenario is.
// `asked`: the model, batch or strategies came from an option, which errors then name.
Scenario variant(const std::string& path, const ModelAt& m, const std::vector<std::string>& strategies, bool asked) {
  // Through the same door as load_scenario: depth-limited, every parse error one line.
  json j = json_check::Reader(path).parse(read_input_file(path, "scenario file", "an existing scenario JSON"),
                                          "a scenario JSON object");
  if (!j.is_object()) json_check::Reader(path).fail("", json_check::describe(j) + " is not an object", "a scenario JSON object");
  j["model"] = m.model;
  j["batch_per_gpu"] = m.batch_per_gpu;
  if (!strategies.empty()) j["strategies"] = strategies;
  const std::string dir = fs::path(path).parent_path().string();
  try {
    return parse_scenario(j.dump(), path, dir.empty() ? "." : dir);
  } catch (const InputError& e) {
    if (!asked && strategies.empty()) throw;
    throw InputError(std::string("--models/--batch/--strategies: ") + e.what());
  }
}

struct Question {
  std::size_t scenario = 0;  // index into the variants (one per model)
  std::string strategy;
  int nodes = 0;        // min bandwidth: the node count
  double gbps = 0;      // max nodes / cheapest: the NIC speed
};

json answer_json(const Question& q, const Scenario& s, const Answer& a) {
  return {{"model", s.network.name},
          {"batch_per_gpu", s.batch_per_gpu},
          {"strategy", q.strategy},
          {"reach", to_string(a.reach)},
          {"nodes", a.nodes},
          {"nic_gbps", a.gbps},
          {"scaling_efficiency", a.at.efficiency},
          {"images_per_s", a.at.images_per_s},
          {"iteration_s", a.at.iteration_s},
          {"binding_resource", a.binding.resource},
          {"binding_share_of_iteration", a.binding.fraction},
          {"time_s", breakdown_to_json(a.at.breakdown)},
          {"evaluations", a.evaluations},
          {"note", a.note}};
}

std::string reach_text(const Answer& a, const std::string& value) {
  switch (a.reach) {
    case Reach::reached: return value;
    case Reach::below_grid: return "<= " + value;
    case Reach::unreachable: return "not reached";
  }
  return value;
}

// The answer's figure (min Gbit/s, or nodes) at each sigma point of the fit covariance,
// and its 95% interval; empty when none was propagated.
struct AnswerInterval {
  std::vector<Answer> plus, minus;
  bool open = false;  // a sigma point's search did not reach the target: no bound on that side
  double lo = 0, hi = 0;
};

// The interval of what the question asks (bandwidth, or nodes), in log space as a run's.
AnswerInterval answer_interval(const Answer& a, std::vector<Answer> plus, std::vector<Answer> minus, bool nodes) {
  AnswerInterval v{std::move(plus), std::move(minus)};
  std::vector<double> up, down;
  for (std::size_t k = 0; k < v.plus.size(); ++k) {
    if (v.plus[k].reach == Reach::unreachable || v.minus[k].reach == Reach::unreachable) v.open = true;
    up.push_back(nodes ? v.plus[k].nodes : v.plus[k].gbps);
    down.push_back(nodes ? v.minus[k].nodes : v.minus[k].gbps);
  }
  std::tie(v.lo, v.hi) = calibrate::interval_of(nodes ? a.nodes : a.gbps, up, down);
  return v;
}

std::string interval_text(const Answer& a, const AnswerInterval& v, bool nodes) {
  if (v.plus.empty() || a.reach == Reach::unreachable) return "-";
  if (v.open) return "open: a sigma point misses it";
  if (nodes) return std::to_string(int(std::floor(v.lo))) + "-" + std::to_string(int(std::ceil(v.hi)));
  return fixed(v.lo, v.lo < 10 ? 2 : 1) + "-" + fixed(v.hi, v.hi < 10 ? 2 : 1);
}

struct Plan {
  bool by_cost, by_nodes;
  double target, gbps, images_per_s;
  int max_nodes;
  std::vector<double> grid;
  Prices prices;
  std::string json_path, engine;
  int scenario_batch_per_gpu;  // the scenario file's; each model's is in its scenario
  std::vector<ModelAt> models;  // one per scenario
  std::vector<Scenario> scenarios;
  std::vector<Question> questions;
  std::vector<Answer> answers;
  std::vector<AnswerInterval> intervals;  // per answer; empty: no covariance propagated
  calibrate::SigmaAxes axes;
};

// The answers as a table on stdout, and as JSON where asked.
void print_answers(const Plan& p) {
  // The table, and the JSON of the same p.answers.
  const Scenario& s0 = p.scenarios.front();
  json out = {{"scenario", s0.name},
              {"scenario_path", s0.path},
              {"engine", p.engine},
              {"profile", s0.profile.name},
              {"precision", to_string(s0.numerics.precision)},
              {"gradient_dtype", to_string(s0.numerics.gradient)},
              {"transport", to_string(s0.transport)},
              {"gpus_per_node", s0.gpus_per_node},
              {"batch_per_gpu", p.scenario_batch_per_gpu},
              {"provenance", provenance_json(s0, p.engine)}};
  out["models"] = json::array();
  for (std::size_t m = 0; m < p.models.size(); ++m)
    out["models"].push_back({{"model", p.scenarios[m].network.name},
                             {"batch_per_gpu", p.models[m].batch_per_gpu},
                             {"batch_source", p.models[m].batch_source}});
  std::vector<std::string> head = {"model", "strategy"};
  if (p.by_cost) {
    out["question"] = "cheapest_cluster";
    out["target_images_per_s"] = p.images_per_s;
    out["prices"] = {{"file", p.prices.path}, {"currency", p.prices.currency}, {"date", p.prices.date}};
    head.insert(head.end(), {"NIC Gbit/s", "nodes"});
    if (!p.intervals.empty()) head.push_back("nodes 95%");
    head.insert(head.end(), {"images/s", "efficiency", "cost " + p.prices.currency, "binding resource"});
  } else if (p.by_nodes) {
    out["question"] = "max_nodes";
    out["target_efficiency"] = p.target;
    out["nic_gbps"] = p.gbps;
    head.insert(head.end(), {"Gbit/s", "max nodes"});
    if (!p.intervals.empty()) head.push_back("max nodes 95%");
    head.insert(head.end(), {"efficiency", "images/s", "binding resource"});
  } else {
    out["question"] = "min_bandwidth";
    out["target_efficiency"] = p.target;
    out["grid_gbps"] = p.grid;
    head.insert(head.end(), {"nodes", "min Gbit/s"});
    if (!p.intervals.empty()) head.push_back("min Gbit/s 95%");
    head.insert(head.end(), {"efficiency", "images/s", "binding resource"});
  }
  Table t(head);
  json list = json::array();
  // Cheapest: per model and strategy, the NIC speed whose cluster costs least.
  std::map<std::pair<std::size_t, std::string>, std::pair<double, std::size_t>> cheapest;
  for (std::size_t i = 0; i < p.questions.size(); ++i) {
    const Question& q = p.questions[i];
    const Answer& a = p.answers[i];
    const Scenario& s = p.scenarios[q.scenario];
    json row = answer_json(q, s, a);
    const bool counts_nodes = p.by_cost || p.by_nodes;
    std::vector<std::string> interval;  // the interval's cell, where there is one
    if (!p.intervals.empty()) {
      const AnswerInterval& v = p.intervals[i];
      interval.push_back(interval_text(a, v, counts_nodes));
      const std::string key = counts_nodes ? "nodes" : "nic_gbps";
      const bool bounded = !v.open && a.reach != Reach::unreachable;
      row[key + "_lo"] = bounded ? json(v.lo) : json(nullptr);
      row[key + "_hi"] = bounded ? json(v.hi) : json(nullptr);
    }
    std::vector<std::string> cells = {s.network.name, q.strategy};
    if (p.by_cost) {
      const bool ok = a.reach != Reach::unreachable;
      const double cost = p.prices.cluster(a.nodes, a.gbps);
      row["cost"] = ok ? json(cost) : json(nullptr);
      cells.insert(cells.end(), {fixed(a.gbps, 0), ok ? std::to_string(a.nodes) : "> " + std::to_string(a.nodes)});
      cells.insert(cells.end(), interval.begin(), interval.end());
      cells.insert(cells.end(), {fixed(a.at.images_per_s, 1), percent(a.at.efficiency), ok ? fixed(cost, 0) : "-",
                                 a.binding.resource});
      auto& best = cheapest[{q.scenario, q.strategy}];
      if (ok && (best.first == 0 || cost < best.first)) best = {cost, i};
    } else if (p.by_nodes) {
      cells.insert(cells.end(), {fixed(a.gbps, 1), a.reach == Reach::unreachable ? "none" : std::to_string(a.nodes)});
      cells.insert(cells.end(), interval.begin(), interval.end());
      cells.insert(cells.end(), {percent(a.at.efficiency), fixed(a.at.images_per_s, 1), a.binding.resource});
    } else {
      cells.insert(cells.end(), {std::to_string(a.nodes), reach_text(a, fixed(a.gbps, a.gbps < 10 ? 2 : 1))});
      cells.insert(cells.end(), interval.begin(), interval.end());
      cells.insert(cells.end(), {percent(a.at.efficiency), fixed(a.at.images_per_s, 1), a.binding.resource});
    }
    t.add(cells);
    list.push_back(row);
  }
  out["answers"] = list;
  if (!p.axes.empty()) out["uncertainty"] = {{"method", p.axes.method()}, {"parameters", p.axes.parameters}};
  std::string batch = "batch " + std::to_string(s0.batch_per_gpu) + "/GPU";
  for (const Scenario& s : p.scenarios)
    if (s.batch_per_gpu != s0.batch_per_gpu) batch = "each model at its own batch (stderr, --json)";
  std::cout << s0.name << ": engine " << p.engine << ", profile " << s0.profile.name << " at "
            << to_string(s0.numerics.precision) << ", " << s0.gpus_per_node << " GPU/node, " << batch << "; ";
  if (p.by_cost) std::cout << "cheapest cluster reaching " << fixed(p.images_per_s, 1) << " images/s at " << p.prices.path << " prices (" << p.prices.date << ")\n\n";
  else if (p.by_nodes) std::cout << "most nodes keeping " << percent(p.target) << " scaling efficiency at " << fixed(p.gbps, 1) << " Gbit/s\n\n";
  else std::cout << "least NIC bandwidth keeping " << percent(p.target) << " scaling efficiency (grid, then bisection to 2%)\n\n";
  t.print(std::cout);
  if (p.by_cost) {
    json best = json::array();
    std::cout << "\ncheapest per model and strategy:\n";
    for (const auto& [key, v] : cheapest) {
      const Answer& a = p.answers[v.second];
      std::cout << "  " << p.scenarios[key.first].network.name << " " << key.second << ": " << a.nodes << " nodes at "
                << fixed(a.gbps, 0) << " Gbit/s, " << fixed(v.first, 0) << " " << p.prices.currency << " (limit: "
                << a.binding.resource << ")\n";
      best.push_back({{"model", p.scenarios[key.first].network.name}, {"strategy", key.second}, {"nodes", a.nodes},
                      {"nic_gbps", a.gbps}, {"cost", v.first}});
    }
    out["cheapest"] = best;
  }
  if (!p.axes.empty())
    std::cout << "\n" << p.axes.method() << " (each search repeated at each sigma point)\n";
  std::cout << "\nbinding resource: what worker 0's GPU waits for most at the answer (time breakdown), "
               "or GPU compute when it waits for under 2% of the iteration\n";
  for (std::size_t i = 0; i < p.answers.size(); ++i)
    if (!p.answers[i].note.empty()) std::cerr << "possim: warning: " << p.answers[i].note << "\n";
  if (p.json_path == "-") std::cout << out.dump(2) << "\n";
  else if (!p.json_path.empty()) {
    write_file_atomic(p.json_path, out.dump(2) + "\n", "--json");
    std::cout << "wrote " << p.json_path << "\n";
  }
}

}  // namespace

int cmd_plan(const std::vector<std::string>& args) {
  handle_interrupts();
  po::options_description desc("options");
  std::string scenario_path, engine_name, grid_text, models_text, strategies_text, nodes_text, prices_path, json_path;
  double target = 0.9, gbps = 0, images_per_s = 0;
  int max_nodes_limit = 256, jobs = int(std::max(1u, std::thread::hardware_concurrency())), batch_option = 0;
  bool quiet = false, all_iterations = false, no_interval = false, analytic_only = false;
  desc.add_options()("scenario", po::value(&scenario_path)->required(), "scenario JSON file (profile, batch, GPUs per node, shards, ...)")(
      "target-efficiency", po::value(&target)->default_value(0.9), "scaling efficiency to keep (speedup / GPUs)")(
      "grid", po::value(&grid_text), "NIC speeds to try, Gbit/s, comma-separated (default 1,2,5,10,25,40,50,100,200,400)")(
      "models", po::value(&models_text),
      "zoo names or layer JSONs, comma-separated (default: the scenario's); a zoo model other than the "
      "scenario's runs at its paper batch")(
      "batch", po::value(&batch_option), "images per GPU for every model (default: see --models)")(
      "strategies", po::value(&strategies_text), "comma-separated (default: the scenario's, less single)")(
      "nodes", po::value(&nodes_text), "node counts for the bandwidth answer (default: the scenario's)")(
      "gbps", po::value(&gbps), "answer instead: the most nodes keeping the target at this NIC speed")(
      "max-nodes", po::value(&max_nodes_limit)->default_value(256), "largest node count searched")(
      "prices", po::value(&prices_path), "prices JSON (see prices/example.json): answer the cheapest cluster")(
      "images-per-s", po::value(&images_per_s), "with --prices: the throughput the cluster must reach")(
      "json", po::value(&json_path), "also write the answers as JSON to this file (- for stdout)")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "questions answered at once");
  add_engine_option(desc, engine_name);
  add_all_iterations_option(desc, all_iterations);
  desc.add_options()("no-interval", po::bool_switch(&no_interval),
                     "with a fitted profile: no 95% intervals (they repeat each search twice per principal axis of "
                     "the fit's covariance)");
  desc.add_options()("analytic-only", po::bool_switch(&analytic_only),
                     "with --engine analytic: keep its answer where transfers queue (screening; by default such "
                     "points run on SimGrid, where the analytic engine may be off by more than 3%)");
  desc.add_options()("quiet,q", po::bool_switch(&quiet), "no progress line");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::variables_map vm;
  if (!parse("plan", args, desc, pos, vm, "SCENARIO [--target-efficiency E] [--grid G,...] [--gbps B | --prices F --images-per-s X]"))
    return 0;

  if (vm.count("json") && json_path != "-") check_output_file(json_path, "--json");  // before the work ('' refused)
  if (!(target > 0 && target <= 1))
    throw InputError("--target-efficiency", "", json_check::describe(json(target)) + " is out of range", "a number in (0, 1]");
  const std::vector<double> grid = vm.count("grid") ? parse_grid(grid_text) : default_bandwidth_grid();
  if (max_nodes_limit < 1 || max_nodes_limit > limits::kMaxNodes)
    throw InputError("--max-nodes", "", std::to_string(max_nodes_limit) + " is out of range",
                     "an integer in [1, " + std::to_string(limits::kMaxNodes) + "]");
  if (jobs < 1 || jobs > 1024) throw InputError("--jobs", "", std::to_string(jobs) + " is not a job count", "an integer in [1, 1024]");
  const bool by_nodes = vm.count("gbps") > 0, by_cost = vm.count("prices") > 0;
  if (by_nodes && by_cost) throw InputError("--gbps", "", "given with --prices", "one question: --gbps or --prices");
  if (by_nodes && !(gbps >= limits::kMinNicGbps && gbps <= limits::kMaxNicGbps)) throw InputError("--gbps", "", json_check::describe(json(gbps)) + " is out of range", "Gbit/s in [0.1, 3200]");
  if (by_cost != (vm.count("images-per-s") > 0))
    throw InputError(by_cost ? "--images-per-s" : "--prices", "", "missing", "--prices and --images-per-s together");
  if (by_cost && !(images_per_s > 0 && images_per_s < 1e12))
    throw InputError("--images-per-s", "", json_check::describe(json(images_per_s)) + " is out of range", "a positive throughput");
  const Prices prices = by_cost ? load_prices(prices_path) : Prices{};

  if (vm.count("batch") && !(batch_option >= 1 && batch_option <= limits::kMaxBatchPerGpu))
    throw InputError("--batch", "", std::to_string(batch_option) + " is out of range",
                     "images per GPU in [1, " + std::to_string(limits::kMaxBatchPerGpu) + "]");

  // One scenario per model, every strategy asked; each model at the batch model_at gives it.
  const Scenario base = load_scenario(scenario_path);
  std::vector<Scenario> scenarios;
  std::vector<ModelAt> models;
  const std::vector<std::string> names =
      vm.count("models") ? split(models_text, "--models", "model names, comma-separated") : base.model_refs;
  std::vector<std::string> strategies =
      vm.count("strategies") ? split(strategies_text, "--strategies", "strategy names, comma-separated")
                             : std::vector<std::string>{};
  for (const std::string& name : names) {
    models.push_back(model_at(name, base, batch_option));
    scenarios.push_back(variant(scenario_path, models.back(), strategies, vm.count("models") || vm.count("batch")));
  }
  if (strategies.empty())
    for (const std::string& st : scenarios.front().strategies)
      if (!is_reference(st)) strategies.push_back(st);
  if (strategies.empty()) throw InputError("--strategies", "", "no strategy but single to plan for", "a strategy that communicates");
  std::vector<int> node_counts = scenarios.front().nodes;
  if (vm.count("nodes")) {
    node_counts.clear();
    for (const std::string& n : split(nodes_text, "--nodes", "node counts, comma-separated")) {
      const std::optional<long long> v = parse_decimal_integer(n);
      if (!v || *v < 1 || *v > max_nodes_limit)
        throw InputError("--nodes", "", "'" + json_check::quoted(n) + "' is not a node count", "integers in [1, --max-nodes]");
      node_counts.push_back(int(*v));
    }
  }

  EngineRequest request = engine_request();
  request.all_iterations = all_iterations;
  request.quiet = quiet;
  const auto engine = make_engine(engine_name, request);
  // Flagged points are rerun on SimGrid, opened midway: a process that cannot open it
  // restarts as one that can now, before its first line of output.
  if (!analytic_only) before_opening_module("the SimGrid engine");

  // Every input checked: say which batch each model runs at (--quiet too, when it is not
  // simply the scenario's).
  for (std::size_t m = 0; m < models.size(); ++m)
    if (!quiet || models.size() > 1 || models[m].batch_per_gpu != base.batch_per_gpu)
      std::cerr << "possim: " << scenarios[m].network.name << " at batch " << models[m].batch_per_gpu << "/GPU ("
                << models[m].batch_source << ")\n";

  std::vector<Question> questions;
  for (std::size_t m = 0; m < scenarios.size(); ++m)
    for (const std::string& st : strategies) {
      if (by_cost) {
        for (const auto& [speed, _] : prices.nic) questions.push_back({m, st, 0, speed});
      } else if (by_nodes) {
        questions.push_back({m, st, 0, gbps});
      } else {
        for (int n : node_counts) questions.push_back({m, st, n, 0});
      }
    }

  // The fit's covariance, where the profile has one: each search repeated at its sigma points.
  calibrate::SigmaAxes axes;
  if (!no_interval && !scenarios.front().profile.fit_covariance.empty()) axes = calibrate::sigma_axes(scenarios.front());
  else if (!no_interval && !quiet)
    std::cerr << "possim: note: " << calibrate::no_covariance_note(scenarios.front().profile) << "\n";
  // [scenario][0]: as given; then +axis 0, -axis 0, +axis 1, ...
  std::vector<std::vector<Scenario>> at_sigma(scenarios.size());
  std::vector<std::vector<double>> single_at(scenarios.size());
  for (std::size_t m = 0; m < scenarios.size(); ++m) {
    at_sigma[m].push_back(scenarios[m]);
    for (std::size_t a = 0; a < axes.steps.size(); ++a)
      for (double sign : {1.0, -1.0}) at_sigma[m].push_back(calibrate::perturbed(scenarios[m], axes.parameters, axes.step(a, sign)));
    for (const Scenario& s : at_sigma[m]) single_at[m].push_back(single_gpu_images_per_s(s, *engine));
  }

  // Points the analytic engine cannot vouch for (analytic_may_differ) are rerun on SimGrid,
  // loaded on the first such point.
  std::once_flag simgrid_loaded;
  std::unique_ptr<Engine> simgrid;
  std::atomic<std::size_t> evaluated{0}, flagged{0};
  const auto checked = [&](const Scenario& at, const SweepPoint& point, double single) {
    Result r = run_point(at, point, *engine, single);
    ++evaluated;
    if (!analytic_may_differ(r)) return r;
    ++flagged;
    if (analytic_only) return r;
    std::call_once(simgrid_loaded, [&] { simgrid = make_engine("simgrid", request); });
    return run_point(at, point, *simgrid, single);
  };

  std::vector<Answer> answers(questions.size());
  std::vector<AnswerInterval> intervals(axes.empty() ? 0 : questions.size());
  std::mutex progress_mutex;
  ProgressLine line("plan", questions.size(), 0, !quiet);
  std::size_t done = 0;
  parallel_for(questions.size(), jobs, [&](std::size_t i) {
    const Question& q = questions[i];
    const Scenario& s = scenarios[q.scenario];
    const auto answer = [&](std::size_t sigma) {
      const Scenario& at = at_sigma[q.scenario][sigma];
      const double single = single_at[q.scenario][sigma];
      const Evaluate eval = [&](int nodes, double speed) {
        return checked(at, SweepPoint{q.strategy, nodes, speed}, single);
      };
      if (by_cost) return min_nodes_for_throughput(eval, q.gbps, max_nodes_limit, images_per_s);
      if (by_nodes) return max_nodes(eval, q.gbps, max_nodes_limit, target);
      return min_bandwidth(eval, q.nodes, grid, target);
    };
    try {
      answers[i] = answer(0);
      if (!axes.empty()) {
        std::vector<Answer> plus, minus;
        for (std::size_t k = 0; k < axes.steps.size(); ++k) {
          plus.push_back(answer(1 + 2 * k));
          minus.push_back(answer(2 + 2 * k));
        }
        intervals[i] = answer_interval(answers[i], std::move(plus), std::move(minus), by_cost || by_nodes);
      }
    } catch (...) {
      rethrow_with(s.network.name + ", " + q.strategy);
    }
    // A NIC that waits on the host's TCP stack, not its line: say so, a faster one would not help.
    Answer& a = answers[i];
    const Cluster at = s.cluster(a.nodes, a.gbps);
    const TransportRates transport = transport_rates(s.profile, at);
    if (a.binding.share == TimeShare::network && host_binds(at.nic_bytes_per_s(), transport))
      a.binding.resource += " (the host's TCP ceiling, " + fixed(transport.host_bytes_per_s * 8 / 1e9, 1) +
                            " Gbit/s: a faster NIC does not help)";
    const std::lock_guard<std::mutex> lock(progress_mutex);
    line.update(++done, s.network.name + " " + q.strategy);
  });
  line.finish();
  if (flagged > 0)
    std::cerr << "possim: warning: " << analytic_imbalance_warning(flagged, evaluated)
              << (analytic_only ? "" : ": plan ran those points on SimGrid instead") << "\n";

  Plan plan{by_cost, by_nodes, target, gbps, images_per_s, max_nodes_limit, grid, prices, json_path,
            engine->name(), base.batch_per_gpu, std::move(models), std::move(scenarios), std::move(questions), std::move(answers), std::move(intervals), axes};
  print_answers(plan);
  return 0;
}

}  // namespace possim::cli
