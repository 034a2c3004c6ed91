// Host-side timing: warm-up runs, then repeats timed with std::chrono::steady_clock; the
// median is the figure (robust to the odd preempted run), min and max are kept.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "kernels/kernel_backend.hpp"

namespace possim::calibrate {

// Median, min and max of `seconds` (not empty) into a KernelTime.
KernelTime summarize(const std::string& kernel, std::vector<double> seconds,
                     const std::string& algorithm, double flops = 0);

template <class F>
KernelTime time_host(const std::string& kernel, const std::string& algorithm, const TimingPolicy& p,
                     F&& run, double flops = 0) {
  for (int i = 0; i < p.warmup; ++i) run();
  std::vector<double> s;
  const int n = p.repeats < 1 ? 1 : p.repeats;
  s.reserve(std::size_t(n));
  for (int i = 0; i < n; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const auto t1 = std::chrono::steady_clock::now();
    s.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  return summarize(kernel, std::move(s), algorithm, flops);
}

double median(std::vector<double> v);

// One kernel of a prepared layer (kernel_backend.hpp): what calibrate records about it, and
// the call that runs it (the CPU backend: runs it; the GPU backend: enqueues it on its stream).
struct Kernel {
  std::string name;
  std::string algorithm;
  double flops = 0;
  std::function<void()> run;
};

// A layer's measurement from its prepared kernels, each timed by time_one(kernel), the
// backend's timer (host clock or CUDA events): calibration and live runs share the kernels.
template <class TimeOne>
LayerMeasurement measure_layer(const Layer& l, const std::vector<Kernel>& forward,
                               const std::vector<Kernel>& backward, TimeOne&& time_one) {
  LayerMeasurement m;
  m.layer = l.name;
  m.kind = l.kind;
  for (const Kernel& k : forward) m.forward.push_back(time_one(k));
  for (const Kernel& k : backward) m.backward.push_back(time_one(k));
  return m;
}

}  // namespace possim::calibrate
