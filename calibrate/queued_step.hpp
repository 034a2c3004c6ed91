// A recorded kernel run's layer times as a queued step sees them (`possim calibrate kernels
// --from RUN --queued-step`).
//
// Why. Each kernel a profile holds was timed alone: launched, then waited for, so its median
// carries its library call's host time and the wait. A framework queues a step's kernels and
// waits once, and the GPU runs the next kernel while the host prepares the one after: on an
// H200 the same kernels back to back took 9.5-35% less than their summed medians
// (reports/gpu/README.md, "One step four ways"). The mechanism is the per-kernel host time a
// queue hides; the run's step timing (StepTiming, --step-repeats) measures how much. Where
// the run kept each pass's time in the queue (StepTiming::queued_forward_s: the time between
// marks around each pass of the back-to-back steps), every layer takes its own; in runs
// recorded before those, every layer is scaled by one ratio per model, batch and precision:
// back-to-back step / summed kernel medians. Each kind's achieved rate follows its layers'
// seconds; the timed kernels themselves (the sidecar's records) are kept as they were.
#pragma once
#include "calibrate/kernels.hpp"

namespace possim::calibrate {

// `cal` (a run with its step timed and every layer timed) with its measured layers as the
// back-to-back step runs them; sets cal.queued_step_scale (queued seconds / summed medians). Throws InputError naming `where`
// when the run has no step timing or left layers untimed.
void scale_to_queued_step(KernelCalibration& cal, const std::string& where);

}  // namespace possim::calibrate
