#include "cli/intervals.hpp"

#include "cli/progress.hpp"
#include "cli/table.hpp"
#include "model/run/sweep.hpp"

namespace possim::cli {

namespace {
// attach_intervals reads the reruns' iteration times, rates and GPU busy time alone.
PointOptions bounds_only() {
  PointOptions o;
  o.iteration_only = true;
  return o;
}
}  // namespace

calibrate::SigmaAxes add_intervals(const Scenario& s, const Engine& engine, int jobs, std::vector<Result>& results,
                                   bool progress) {
  calibrate::SigmaAxes axes = calibrate::sigma_axes(s);
  if (axes.empty()) return axes;
  const std::size_t points = sweep_points(s).size();
  ProgressLine line("interval", axes.reruns() * points, 0, progress, /*terminal_only=*/true);
  std::size_t before = 0;
  const auto tick = [&](std::size_t done, std::size_t, const Result& r) { line.update(before + done, r); };
  std::vector<std::vector<Result>> plus, minus;
  const PointOptions bounds = bounds_only();
  for (std::size_t a = 0; a < axes.steps.size(); ++a) {
    plus.push_back(run_sweep(calibrate::perturbed(s, axes.parameters, axes.step(a, 1)), engine, jobs, tick, bounds));
    before += points;
    minus.push_back(run_sweep(calibrate::perturbed(s, axes.parameters, axes.step(a, -1)), engine, jobs, tick, bounds));
    before += points;
  }
  line.finish();
  calibrate::attach_intervals(results, plus, minus);
  return axes;
}

void add_point_interval(const Scenario& s, const SweepPoint& p, const Engine& engine, Result& r) {
  const calibrate::SigmaAxes axes = calibrate::sigma_axes(s);
  if (axes.empty() || r.partial()) return;
  std::vector<std::vector<Result>> plus, minus;
  const PointOptions bounds = bounds_only();
  for (std::size_t a = 0; a < axes.steps.size(); ++a)
    for (double sign : {1.0, -1.0}) {
      const Scenario at = calibrate::perturbed(s, axes.parameters, axes.step(a, sign));
      (sign > 0 ? plus : minus).push_back({run_point(at, p, engine, single_gpu_images_per_s(at, engine), bounds)});
    }
  std::vector<Result> one = {r};
  calibrate::attach_intervals(one, plus, minus);
  r.interval = one.front().interval;
}

std::string images_interval(const Result& r) {
  if (!r.interval) return "-";
  return fixed(r.interval->images_per_s_lo, 1) + "-" + fixed(r.interval->images_per_s_hi, 1);
}

}  // namespace possim::cli
