#include "model/sweep.hpp"

namespace possim {

std::vector<SweepPoint> sweep_points(const Scenario& s) {
  std::vector<SweepPoint> points;
  for (const auto& strategy : s.strategies)
    for (int nodes : s.nodes)
      for (double gbps : s.nic_gbps) points.push_back(SweepPoint{strategy, nodes, gbps});
  return points;
}

PlanRequest plan_request(const Scenario& s, const SweepPoint& p) {
  PlanRequest r;
  r.net = &s.network;
  r.profile = &s.profile;
  r.cluster = s.cluster(p.nodes, p.nic_gbps);
  r.batch_per_gpu = s.batch_per_gpu;
  r.options = s.options;
  r.iterations = s.iterations;
  return r;
}

static RunOptions run_options(const Scenario& s, bool timeline) {
  RunOptions o;
  o.timeline = timeline;
  o.seed = s.seed;
  o.stragglers = s.options.stragglers;
  return o;
}

double single_gpu_images_per_s(const Scenario& s, const Engine& engine) {
  const SweepPoint one{"single", 1, s.nic_gbps.front()};
  const SyncPlan plan = make_plan("single", plan_request(s, one));
  RunOptions o = run_options(s, false);
  o.stragglers = StragglerModel{};  // the baseline is the undisturbed GPU
  const Result r = engine.run(plan, s.network, o);
  return r.iteration_s > 0 ? s.batch_per_gpu / r.iteration_s : 0;
}

Result run_point(const Scenario& s, const SweepPoint& p, const Engine& engine,
                 double single_ips, bool timeline) {
  const SyncPlan plan = make_plan(p.strategy, plan_request(s, p));
  Result r = engine.run(plan, s.network, run_options(s, timeline));
  r.finish(single_ips);
  return r;
}

std::vector<Result> run_sweep(const Scenario& s, const Engine& engine, const Progress& progress) {
  const double single = single_gpu_images_per_s(s, engine);
  const auto points = sweep_points(s);
  std::vector<Result> results;
  results.reserve(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    results.push_back(run_point(s, points[i], engine, single));
    if (progress) progress(i + 1, points.size());
  }
  return results;
}

}  // namespace possim
