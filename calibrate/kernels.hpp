// `possim calibrate kernels`: run a backend over every layer of a network at one batch, the
// SF rebuild of each FC layer and a copy-bandwidth curve; turn the timings into a profile
// (measured per-layer seconds, achieved FLOP rates) and a sidecar saying how each number
// was measured.
#pragma once
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/kernel_backend.hpp"
#include "calibrate/line_fit.hpp"
#include "model/workload/network.hpp"
#include "model/input/profile.hpp"

namespace possim::calibrate {

struct KernelRunOptions {
  TimingPolicy timing;
  int max_layers = 0;     // time only the first N layers (0: all); the rest are estimated
  int rebuild_peers = 1;  // SF rebuild inner dimension: batch x peers
  std::vector<double> copy_sizes_bytes = default_copy_sizes();
  std::function<void(const std::string&)> progress;  // one line per step, for stderr
  // Times of whole steps (StepTiming), this many of each kind after `timing.warmup`
  // warm-up steps; 0: none. Needs every layer timed (max_layers 0).
  int step_repeats = 0;

  static std::vector<double> default_copy_sizes();  // 4 KiB .. 64 MiB, x4 steps
};

struct RebuildTiming {
  std::string layer;
  std::int64_t m = 0, n = 0, k = 0;
  KernelTime time;
};

// One training step's kernels run as a whole, every layer prepared (PreparedLayer): its
// forward passes in layer order, then its backward passes in reverse, each kind `repeats`
// times, the two kinds alternating, host wall clock from the first launch to the last
// kernel's end. `waited_s`: every pass waited for before the next is launched (possim's
// live kernels); `back_to_back_s`: every pass queued, one wait at the end (a framework's
// step). Beside the sum of the kernels' medians timed one by one (what a profile holds),
// they split a step's time into the kernels alone, what running them back to back adds
// (caches a layer's repeats kept warm, launch gaps) and what waiting after each pass adds.
struct StepTiming {
  int repeats = 0;  // 0: not timed
  double kernels_sum_s = 0;  // the layers' forward + backward medians, summed
  double waited_s = 0, back_to_back_s = 0;  // medians
  double waited_min_s = 0, back_to_back_min_s = 0;
  // Per layer, in layer order: the median over the back-to-back steps of the time between
  // the marks (KernelBackend::mark) around its forward and its backward pass, what each
  // pass takes inside the queue. Empty in runs recorded before they were kept.
  std::vector<double> queued_forward_s, queued_backward_s;
};

struct KernelCalibration {
  std::string model;
  int batch = 0;
  std::string backend;
  std::string device;
  nlohmann::json backend_info;
  TimingPolicy timing;
  std::vector<LayerMeasurement> layers;       // the layers that were timed
  std::vector<std::string> estimated_layers;  // layers left out by max_layers
  MeasuredModel measured;                     // every layer of the network
  std::vector<RebuildTiming> rebuild;
  double rebuild_flops_per_s = 0;                // FLOP-weighted over the FC layers; 0 if none
  std::map<LayerKind, double> kind_flops_per_s;  // achieved rate per kind (timed layers)
  std::vector<CopyPoint> copies;
  bool copies_cross_a_bus = false;
  LineFit copy_fit;  // pinned copies, both directions
  bool copy_fit_ok = false;
  StepTiming step;
  // 0: the layers' seconds are their kernels' medians timed one by one; else the factor
  // they were scaled by to the back-to-back step (scale_to_queued_step, queued_step.hpp).
  double queued_step_scale = 0;
  double wall_s = 0;
};

// Throws InputError for a layer the backend cannot time (bad geometry) and
// std::runtime_error for backend failures.
KernelCalibration calibrate_kernels(const Network& net, int batch, KernelBackend& backend,
                                    const KernelRunOptions& opt);

// A run recorded in a sidecar (kernel_sidecar's JSON, read back and checked; `where` names
// it in messages) as if it had just been timed: the same derived numbers, for another base.
KernelCalibration recorded_calibration(const nlohmann::json& sidecar, const Network& net, const std::string& where);

// `base` with the measured numbers put in: measured block, device, peak and kind
// efficiencies from achieved rates, rebuild rate, and (GPU backend) PCIe rate and latency.
// Every other field keeps the base's value, and "sources" says which is which.
Profile calibrated_profile(const Profile& base, const KernelCalibration& cal,
                           const std::string& name, bool keep_base_throughput = false);

// The optimizer step's rate (Profile::optimizer_bytes_per_s) from a `possim calibrate
// roofline` file of the same device: its large device copy's bytes read plus written per
// second, the memory traffic an optimizer's elementwise pass makes. Checked; `where` names it.
struct OptimizerRate {
  double bytes_per_s = 0;
  std::string source;
  void apply_to(Profile& p) const;  // the field and its source note
};
OptimizerRate optimizer_rate(const nlohmann::json& roofline, const std::string& where);

// Everything the profile format has no field for: per-kernel medians, min/max,
// algorithms, library versions, the copy curve and its fit.
nlohmann::json kernel_sidecar(const KernelCalibration& cal, const Profile& base);

}  // namespace possim::calibrate
