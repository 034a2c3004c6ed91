// Run every point of a scenario (strategy x nodes x bandwidth) through one engine.
#pragma once
#include <functional>
#include <string>
#include <stdexcept>
#include <vector>

#include "model/run/engine.hpp"
#include "model/input/scenario.hpp"
#include "model/strategies/strategy.hpp"

namespace possim {

struct SweepPoint {
  std::string strategy;
  int nodes = 1;
  double nic_gbps = 10;
};

// Points in output order: strategy, then nodes, then bandwidth, as the scenario lists them.
// `single` runs on one node whatever the scenario's node counts: it gets one point per
// bandwidth (several would be identical rows).
std::vector<SweepPoint> sweep_points(const Scenario& s);
// A one-line note when sweep_points merged points, else "".
std::string sweep_note(const Scenario& s);

PlanRequest plan_request(const Scenario& s, const SweepPoint& p);

// What a run records beyond the scenario: a timeline (of some workers, at some points).
struct PointOptions {
  bool timeline = false;
  WorkerSelection trace_workers;
  std::vector<SweepPoint> trace_points;  // the points with a timeline; empty: every point
  bool iteration_only = false;           // RunOptions::iteration_only
  bool traces(const SweepPoint& p) const;
};

// One point, finished against the single-GPU baseline of the same engine. The plan is
// checked first (check_plan): a point that would compute with inf or NaN is an InputError.
Result run_point(const Scenario& s, const SweepPoint& p, const Engine& engine,
                 double single_gpu_images_per_s, const PointOptions& opt = {});

// Images/s of one GPU with no communication, for speedups.
double single_gpu_images_per_s(const Scenario& s, const Engine& engine);

using Progress = std::function<void(std::size_t done, std::size_t total, const Result& last)>;
// Runs the points `jobs` at a time (the SimGrid engine runs each in its own process, so
// a sweep uses several cores); results come back in sweep_points() order whatever the
// order they finish in. `progress` is called from one thread at a time. The first point
// that fails stops the sweep; its error is rethrown (InputError stays one) with the point
// named first ("tf_stock at 1 nodes, 40 Gbit/s: ..."). A point whose engine returns a
// partial result (a live run that failed after completing iterations) stops it too, with
// SweepFailure: the results so far, that one last, are the caller's to keep.
struct SweepFailure : std::runtime_error {
  SweepFailure(const std::string& what, std::vector<Result> r) : std::runtime_error(what), kept(std::move(r)) {}
  std::vector<Result> kept;  // in sweep_points() order
};
std::vector<Result> run_sweep(const Scenario& s, const Engine& engine, int jobs = 1,
                              const Progress& progress = {}, const PointOptions& opt = {});

}  // namespace possim
