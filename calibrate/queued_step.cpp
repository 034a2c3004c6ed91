#include "calibrate/queued_step.hpp"

#include <cmath>

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
  const double r = queued / sum;
  for (LayerTiming& l : cal.measured.layers) {
    l.forward_s *= r;
    l.backward_s *= r;
  }
  // Each kind does its FLOPs in r times the seconds.
  for (auto& [kind, flops_per_s] : cal.kind_flops_per_s) flops_per_s /= r;
  cal.queued_step_scale = r;
}

}  // namespace possim::calibrate
