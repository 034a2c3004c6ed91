#include "calibrate/queued_step.hpp"

#include <cmath>
#include <map>

#include "model/input/error.hpp"

namespace possim::calibrate {

void scale_to_queued_step(KernelCalibration& cal, const std::string& where) {
  if (cal.step.repeats <= 0)
    throw InputError(where, "step", "has no step timing: the run cannot say what a queued step takes",
                     "a run recorded with possim calibrate kernels --step-repeats N");
  if (!cal.estimated_layers.empty())
    throw InputError(where, "estimated_layers",
                     std::to_string(cal.estimated_layers.size()) + " layers were not timed (--layers)",
                     "a run that timed every layer");
  if (cal.queued_step_scale != 0)
    throw InputError(where, "step", "its layers are already scaled to a queued step", "one scaling");
  const double sum = cal.step.kernels_sum_s, queued = cal.step.back_to_back_s;
  if (!(sum > 0) || !(queued > 0) || !std::isfinite(queued / sum))
    throw InputError(where, "step.back_to_back_s", "no ratio to the summed kernel medians (" + std::to_string(sum) + " s)",
                     "a positive step and kernel sum");
  const std::vector<double>&fwd = cal.step.queued_forward_s, &bwd = cal.step.queued_backward_s;
  if (fwd.empty()) {  // one ratio for the run
    const double r = queued / sum;
    for (LayerTiming& l : cal.measured.layers) {
      l.forward_s *= r;
      l.backward_s *= r;
    }
    // Each kind does its FLOPs in r times the seconds.
    for (auto& [kind, flops_per_s] : cal.kind_flops_per_s) flops_per_s /= r;
    cal.queued_step_scale = r;
    return;
  }
  // Each layer's own passes in the queue; each kind's rate over its layers' queued seconds.
  if (fwd.size() != cal.measured.layers.size() || bwd.size() != fwd.size() || cal.layers.size() != fwd.size())
    throw InputError(where, "step.queued_layers", "not one entry per timed layer", "one per layer");
  std::map<LayerKind, std::pair<double, double>> seconds;  // kind -> (alone, queued)
  double total = 0;
  for (std::size_t i = 0; i < fwd.size(); ++i) {
    LayerTiming& l = cal.measured.layers[i];
    auto& k = seconds[cal.layers[i].kind];
    k.first += l.forward_s + l.backward_s;
    l.forward_s = fwd[i];
    l.backward_s = bwd[i];
    k.second += l.forward_s + l.backward_s;
    total += l.forward_s + l.backward_s;
  }
  if (!(total > 0)) throw InputError(where, "step.queued_layers", "the passes took no time in the queue", "positive seconds");
  for (auto& [kind, flops_per_s] : cal.kind_flops_per_s) {
    const auto [alone, in_queue] = seconds[kind];
    if (!(in_queue > 0))
      throw InputError(where, "step.queued_layers", std::string("the ") + to_string(kind) + " layers took no time in the queue",
                       "positive seconds");
    flops_per_s *= alone / in_queue;
  }
  cal.queued_step_scale = total / sum;
}

}  // namespace possim::calibrate
