#include "model/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <stdexcept>

#include "model/error.hpp"
#include "model/parallel.hpp"
#include "model/plan_check.hpp"

namespace possim {

namespace {

std::string describe(const SweepPoint& p) {
  char gbps[32];
  std::snprintf(gbps, sizeof gbps, "%g", p.nic_gbps);
  return p.strategy + " at " + std::to_string(p.nodes) + " nodes, " + gbps + " Gbit/s";
}

}  // namespace

std::vector<SweepPoint> sweep_points(const Scenario& s) {
  std::vector<SweepPoint> points;
  for (const auto& strategy : s.strategies) {
    if (strategy == "single") {  // one GPU of one node: the node count changes nothing
      for (double gbps : s.nic_gbps) points.push_back(SweepPoint{strategy, 1, gbps});
      continue;
    }
    for (int nodes : s.nodes)
      for (double gbps : s.nic_gbps) points.push_back(SweepPoint{strategy, nodes, gbps});
  }
  return points;
}

std::string sweep_note(const Scenario& s) {
  const bool single = std::find(s.strategies.begin(), s.strategies.end(), "single") != s.strategies.end();
  if (!single || s.nodes.size() < 2) return "";
  return "note: single runs on one GPU of one node, so it has one row per bandwidth, not one per "
         "node count";
}

std::string analytic_caveat(const Scenario& s) {
  std::string ignored;
  const auto add = [&](const std::string& what) { ignored += (ignored.empty() ? "" : ", ") + what; };
  if (s.options.consistency == Consistency::ssp) add("SSP staleness " + std::to_string(s.options.staleness));
  if (s.options.stragglers.kind != "none") add(s.options.stragglers.kind + " stragglers");
  if (s.gpus_per_node > 1) add("the GPUs of a node beyond the first");
  if (ignored.empty()) return "";
  return "the analytic engine ignores " + ignored +
         " (it cannot model them faithfully); --engine simgrid simulates them";
}

PlanRequest plan_request(const Scenario& s, const SweepPoint& p) {
  PlanRequest r;
  r.net = &s.network;
  r.profile = &s.profile_for(p.strategy);
  r.cluster = s.cluster(p.nodes, p.nic_gbps);
  r.batch_per_gpu = s.batch_per_gpu;
  r.options = s.options;
  r.iterations = s.iterations;
  return r;
}

static RunOptions run_options(const Scenario& s, const PointOptions& opt) {
  RunOptions o;
  o.timeline = opt.timeline;
  o.reuse_repeating_iterations = !opt.all_iterations;
  o.seed = s.seed;
  o.stragglers = s.options.stragglers;
  return o;
}

double single_gpu_images_per_s(const Scenario& s, const Engine& engine) {
  const SweepPoint one{"single", 1, s.nic_gbps.front()};
  const SyncPlan plan = make_plan("single", plan_request(s, one));
  check_plan(plan, s.network);
  RunOptions o = run_options(s, PointOptions{});
  o.stragglers = StragglerModel{};  // the baseline is the undisturbed GPU
  const Result r = engine.run(plan, s.network, o);
  return r.iteration_s > 0 ? s.batch_per_gpu / r.iteration_s : 0;
}

Result run_point(const Scenario& s, const SweepPoint& p, const Engine& engine,
                 double single_ips, const PointOptions& opt) {
  const SyncPlan plan = make_plan(p.strategy, plan_request(s, p));
  check_plan(plan, s.network);
  Result r = engine.run(plan, s.network, run_options(s, opt));
  if (!std::isfinite(r.iteration_s))
    throw std::runtime_error(std::string(engine.name()) + " engine: iteration time is not finite");
  r.finish(single_ips);
  return r;
}

std::vector<Result> run_sweep(const Scenario& s, const Engine& engine, int jobs,
                              const Progress& progress, const PointOptions& opt) {
  const std::string where = s.path.empty() ? "" : s.path + ": ";
  double single = 0;
  try {
    single = single_gpu_images_per_s(s, engine);
  } catch (...) {
    rethrow_with(where + "the single-GPU baseline: ");
  }
  const auto points = sweep_points(s);
  std::vector<Result> results(points.size());
  std::size_t done = 0;
  std::mutex mutex;
  // The first failure ends the sweep (parallel_for); its error names the point.
  parallel_for(points.size(), jobs, [&](std::size_t i) {
    Result r;
    try {
      r = run_point(s, points[i], engine, single, opt);
    } catch (...) {
      rethrow_with(where + describe(points[i]) + ": ");
    }
    const std::lock_guard<std::mutex> lock(mutex);
    results[i] = std::move(r);
    if (progress) progress(++done, points.size(), results[i]);
  });
  return results;
}

}  // namespace possim
