// What every engine's Result has in common, from the plan it ran.
#include "model/run/engine.hpp"

#include "model/plan/work_count.hpp"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

namespace possim {

Result begin_result(const SyncPlan& plan, const char* engine, std::vector<double> iteration_end_s) {
  Result r;
  r.engine = engine;
  r.model = plan.model;
  r.strategy = plan.strategy;
  r.cluster = plan.cluster;
  r.batch_per_gpu = plan.batch_per_gpu;
  r.iterations = int(iteration_end_s.size());
  r.simulated_iterations = r.iterations;
  r.iteration_end_s = std::move(iteration_end_s);
  const std::size_t k = r.iteration_end_s.size();
  r.iteration_s = k > 1 ? (r.iteration_end_s.back() - r.iteration_end_s.front()) / double(k - 1)
                        : r.iteration_end_s.front();
  for (std::size_t t = 0; t < k && t < plan.stragglers.dropped.size(); ++t) {
    std::vector<int> out;
    for (std::size_t w = 0; w < plan.stragglers.dropped[t].size(); ++w)
      if (plan.stragglers.dropped[t][w]) out.push_back(int(w));
    r.dropped_workers.push_back(out);
  }
  return r;
}

void fill_layer_rows(const SyncPlan& plan, Result& r, const TaskSpan& span) {
  r.layers.clear();
  r.layers.reserve(plan.decisions.size());
  for (const LayerDecision& d : plan.decisions) {
    LayerResult& row = r.layers.emplace_back();
    const PlanLayer& l = plan.layers.at(std::size_t(d.layer));
    row.layer = d.layer;
    row.name = l.name;
    row.kind = l.kind;
    row.scheme = d.scheme;
    row.params = l.params;
    row.ps_params = d.ps_params;
    row.sfb_params = d.sfb_params;
    row.adam_params = d.adam_params;
    row.why = d.why;
  }
  const std::size_t k = r.iteration_end_s.size();
  const double iter_start = k > 1 ? r.iteration_end_s[k - 2] : 0.0;
  // Each layer's sync span, in one pass over the tasks in plan order (not one pass per
  // layer: a model of 100,000 layers would take minutes).
  // Unset until a task is seen: a start can be a rounding below the iteration's start (a
  // repeated iteration's times are its source's shifted), which a -1 for "none" would hide.
  constexpr double kUnset = std::numeric_limits<double>::infinity();
  std::vector<std::pair<double, double>> sync(plan.layers.size(), {kUnset, -kUnset});
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const Task& t = plan.tasks[i];
    if (t.layer < 0 || std::size_t(t.layer) >= plan.layers.size() || t.pass()) continue;
    const auto [start, finish] = span(i);
    auto& [first, last] = sync[std::size_t(t.layer)];
    first = std::min(first, start - iter_start);
    last = std::max(last, finish - iter_start);
  }
  work::count(plan.tasks.size() + r.layers.size());
  for (LayerResult& row : r.layers) {
    const auto [first, last] = sync.at(std::size_t(row.layer));
    if (first == kUnset) continue;  // the layer never syncs: LayerResult's -1 stays
    row.sync_start_s = first;
    row.sync_end_s = last;
  }
}

}  // namespace possim
