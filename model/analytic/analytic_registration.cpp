// The analytic engine as the registry knows it: closed form; --all-iterations schedules
// every iteration.
#include "model/analytic/analytic_engine.hpp"
#include "model/run/engine_registry.hpp"

namespace possim {

std::string analytic_caveat(const Scenario& s) {
  if (s.options.stragglers.kind == "none" || s.options.consistency == Consistency::ssp) return "";
  return "the analytic engine lets the slowest worker not dropped stand for every worker in each "
         "iteration (" + s.options.stragglers.kind + " stragglers; no per-worker contention); --engine "
         "simgrid simulates each worker";
}

void register_analytic_engine() {
  EngineInfo e;
  e.name = "analytic";
  e.summary = "closed form";
  e.capabilities.closed_form = true;
  e.capabilities.runs_sweeps = true;
  e.make = [](const EngineRequest& q) { return std::make_unique<AnalyticEngine>(q.all_iterations); };
  e.caveat = analytic_caveat;
  register_engine(std::move(e));
}

}  // namespace possim
