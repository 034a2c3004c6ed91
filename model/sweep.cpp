#include "model/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

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
  RunOptions o = run_options(s, PointOptions{});
  o.stragglers = StragglerModel{};  // the baseline is the undisturbed GPU
  const Result r = engine.run(plan, s.network, o);
  return r.iteration_s > 0 ? s.batch_per_gpu / r.iteration_s : 0;
}

Result run_point(const Scenario& s, const SweepPoint& p, const Engine& engine,
                 double single_ips, const PointOptions& opt) {
  const SyncPlan plan = make_plan(p.strategy, plan_request(s, p));
  Result r = engine.run(plan, s.network, run_options(s, opt));
  r.finish(single_ips);
  return r;
}

std::vector<Result> run_sweep(const Scenario& s, const Engine& engine, int jobs,
                              const Progress& progress, const PointOptions& opt) {
  const double single = single_gpu_images_per_s(s, engine);
  const auto points = sweep_points(s);
  std::vector<Result> results(points.size());
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex mutex;
  std::exception_ptr failure;
  const auto work = [&] {
    for (std::size_t i; (i = next++) < points.size();) {
      try {
        Result r = run_point(s, points[i], engine, single, opt);
        const std::lock_guard<std::mutex> lock(mutex);
        results[i] = std::move(r);
        if (progress) progress(++done, points.size(), results[i]);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        next = points.size();  // stop handing out points
      }
    }
  };
  const int threads = std::max(1, std::min<int>(jobs, int(points.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return results;
}

}  // namespace possim
