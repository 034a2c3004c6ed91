#include "model/run/sweep.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <mutex>
#include <stdexcept>

#include "model/input/error.hpp"
#include "model/plan/plan_check.hpp"
#include "model/run/child_processes.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/fork_gate.hpp"
#include "model/run/parallel.hpp"
#include "model/input/text.hpp"

namespace possim {

namespace {

std::string describe(const SweepPoint& p) {
  char gbps[32];
  std::snprintf(gbps, sizeof gbps, "%g", p.nic_gbps);
  return p.strategy + " at " + counted(p.nodes, "node") + ", " + gbps + " Gbit/s";
}

// Poseidon under "best_scheme": "timed" picks each layer's scheme by the candidate plans'
// times at the point's own line rate (PlanRequest::time_plan).
bool times_candidates(const Scenario& s) { return s.options.best_scheme == BestSchemeRule::timed; }

}  // namespace

std::vector<SweepPoint> sweep_points(const Scenario& s) {
  std::vector<SweepPoint> points;
  for (const auto& strategy : s.strategies) {
    if (is_reference(strategy)) {  // one GPU of one node: the node count changes nothing
      for (double gbps : s.nic_gbps) points.push_back(SweepPoint{strategy, 1, gbps});
      continue;
    }
    for (int nodes : s.nodes)
      for (double gbps : s.nic_gbps) points.push_back(SweepPoint{strategy, nodes, gbps});
  }
  return points;
}

std::string sweep_note(const Scenario& s) {
  const bool single = std::any_of(s.strategies.begin(), s.strategies.end(), is_reference);
  if (!single || s.nodes.size() < 2) return "";
  return "note: single runs on one GPU of one node, so it has one row per bandwidth, not one per "
         "node count";
}

PlanRequest plan_request(const Scenario& s, const SweepPoint& p) {
  PlanRequest r;
  r.net = &s.network;
  r.profile = &s.profile_for(p.strategy);
  r.cluster = s.cluster(p.nodes, p.nic_gbps);
  r.batch_per_gpu = s.batch_per_gpu;
  r.options = s.options;
  r.iterations = s.iterations;
  r.seed = s.seed;
  if (times_candidates(s)) {
    // Candidates are timed in closed form: the analytic engine charges what SimGrid does
    // (bench/results/analytic_agreement.md) at a fraction of a millisecond a plan.
    std::shared_ptr<const Engine> analytic = make_engine("analytic", EngineRequest{});
    RunOptions timed;
    timed.iteration_only = true;
    r.time_plan = [analytic, timed](const SyncPlan& plan) { return analytic->run(plan, timed).iteration_s; };
  }
  return r;
}

bool PointOptions::traces(const SweepPoint& p) const {
  if (!timeline) return false;
  return trace_points.empty() || std::any_of(trace_points.begin(), trace_points.end(), [&](const SweepPoint& q) {
           return q.strategy == p.strategy && q.nodes == p.nodes && q.nic_gbps == p.nic_gbps;
         });
}

double single_gpu_images_per_s(const Scenario& s, const Engine& engine) {
  const SweepPoint one{reference_strategy(), 1, s.nic_gbps.front()};
  PlanRequest request = plan_request(s, one);
  request.options.stragglers = StragglerModel{};  // the baseline is the undisturbed GPU
  const SyncPlan plan = make_plan(reference_strategy(), request);
  check_plan(plan);
  RunOptions o;
  o.iteration_only = true;
  const Result r = engine.run(plan, o);
  return r.iteration_s > 0 ? s.batch_per_gpu / r.iteration_s : 0;
}

namespace {

// Point p on a plan built for it, or for a point that differs in the NIC's line rate alone.
Result run_plan(const SyncPlan& plan, const SweepPoint& p, const Engine& engine, double single_ips,
                const PointOptions& opt) {
  check_plan(plan);
  RunOptions o;
  o.timeline = opt.traces(p);
  o.trace_workers = opt.trace_workers;
  o.iteration_only = opt.iteration_only;
  Result r = engine.run(plan, o);
  if (!std::isfinite(r.iteration_s))
    throw std::runtime_error(std::string(engine.name()) + " engine: iteration time is not finite");
  r.finish(single_ips);
  return r;
}

// Runs of consecutive points (first, count) that run on one plan, in turn. The strategies
// read the NIC's line rate nowhere but the plan's cluster (the engines read it there:
// SyncPlan::nic_bytes_per_s()), so points that differ in the bandwidth alone share a plan
// with its line rate set to each in turn (tests/model/run/test_shared_plans.cpp holds every
// strategy's plan so set to the plan built at that rate, and the results to run_point's, bit
// for bit). Not where a strategy times its candidate schemes (their times depend on the
// rate), nor where the engine's points take seconds: one point an item, spread over the jobs.
std::vector<std::pair<std::size_t, std::size_t>> plan_runs(const Scenario& s, const std::vector<SweepPoint>& points,
                                                           const Engine& engine) {
  const bool share = engine.points_are_cheap() && !times_candidates(s);
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    if (share && !runs.empty()) {
      const SweepPoint& q = points[runs.back().first];
      if (q.strategy == p.strategy && q.nodes == p.nodes) {
        ++runs.back().second;
        continue;
      }
    }
    runs.emplace_back(i, 1);
  }
  return runs;
}

}  // namespace

Result run_point(const Scenario& s, const SweepPoint& p, const Engine& engine,
                 double single_ips, const PointOptions& opt) {
  fork_gate::let_fork();  // a search runs point after point on this thread: a waiting fork goes first
  return run_plan(make_plan(p.strategy, plan_request(s, p)), p, engine, single_ips, opt);
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
  std::vector<char> finished(points.size(), 0);
  std::mutex mutex;
  std::string partial;  // the message of a point that came back partial
  // The first failure ends the sweep (parallel_for); its error names the point.
  try {
    const auto runs = plan_runs(s, points, engine);
    parallel_for(runs.size(), jobs, [&](std::size_t run) {
      const auto [first, count] = runs[run];
      SyncPlan plan;
      for (std::size_t i = first; i < first + count; ++i) {
        Result r;
        try {
          fork_gate::let_fork();
          if (i == first) plan = make_plan(points[i].strategy, plan_request(s, points[i]));
          else plan.cluster.nic_gbps = points[i].nic_gbps;  // the one thing that differs (plan_runs)
          r = run_plan(plan, points[i], engine, single, opt);
        } catch (...) {
          rethrow_with(where + describe(points[i]) + ": ");
        }
        const std::lock_guard<std::mutex> lock(mutex);
        results[i] = std::move(r);
        finished[i] = 1;
        if (results[i].partial()) {
          partial = where + describe(points[i]) + ": " + results[i].failure;
          throw std::runtime_error(partial);
        }
        if (progress) progress(++done, points.size(), results[i]);
      }
    });
  } catch (...) {
    if (partial.empty()) throw;
    std::vector<Result> kept;
    for (std::size_t i = 0; i < points.size(); ++i)
      if (finished[i]) kept.push_back(std::move(results[i]));
    throw SweepFailure(partial, std::move(kept));
  }
  return results;
}

}  // namespace possim
