// The interface every kernel-timing backend implements: time one layer's forward and
// backward kernels at a batch, the sufficient-factor rebuild GEMM, and host<->device
// copies. The CPU backend (Eigen) runs everywhere; the GPU backend (cuDNN/cuBLAS) exists
// when CUDA and cuDNN were found at configure time, as a plugin loaded on request
// (kernels/cuda_backend.hpp).
#pragma once
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/workload/layer.hpp"
#include "model/workload/network.hpp"

namespace possim::calibrate {

enum class Precision { fp32, tf32, bf16 };
const char* to_string(Precision p);
// Throws InputError naming --precision.
Precision precision_from_string(const std::string& s);

// Every kernel: `warmup` untimed runs, then `repeats` timed runs; the median counts.
struct TimingPolicy {
  int warmup = 1;
  int repeats = 5;
};

// One timed kernel (or a fixed group of kernels launched together).
struct KernelTime {
  std::string kernel;  // e.g. "forward", "backward_data", "backward_filter", "backward_bias"
  double median_s = 0;
  double min_s = 0;
  double max_s = 0;
  int repeats = 0;
  std::string algorithm;  // what ran: cuDNN algorithm, "im2col+gemm", ...
  double flops = 0;       // work of one run, when the kernel is a GEMM-like product (else 0)
};

// All kernels of one layer at one batch. forward_s/backward_s are sums of medians.
struct LayerMeasurement {
  std::string layer;
  LayerKind kind = LayerKind::conv;
  std::vector<KernelTime> forward;
  std::vector<KernelTime> backward;
  double forward_s() const;
  double backward_s() const;
};

// One point of a copy-bandwidth curve.
struct CopyPoint {
  std::string direction;  // "h2d" or "d2h"
  bool pinned = true;
  double bytes = 0;
  double median_s = 0;
  double bytes_per_s() const { return median_s > 0 ? bytes / median_s : 0; }
};

// One layer made ready to run for real (the live engine's "kernels" compute): its buffers
// allocated and, on a GPU, its algorithms chosen, once. forward() and backward() each run
// the layer's kernels once, the same kernels time_layer times, and return when they have
// finished (a GPU backend synchronizes its stream). One thread at a time may call them,
// any thread (a GPU backend makes its device current on the calling thread).
class PreparedLayer {
 public:
  virtual ~PreparedLayer() = default;
  virtual void forward() = 0;
  virtual void backward() = 0;
  // The same kernels, queued without waiting for them (a GPU backend returns once they are
  // launched on its stream; KernelBackend::synchronize waits): how a framework runs a step,
  // where forward() and backward() wait after every pass. A CPU backend runs them here.
  virtual void launch_forward() { forward(); }
  virtual void launch_backward() { backward(); }
  virtual double bytes() const = 0;  // the memory it holds, host or device
};

class KernelBackend {
 public:
  virtual ~KernelBackend() = default;
  virtual std::string name() const = 0;    // "cpu" or "gpu"
  virtual std::string device() const = 0;  // the device's name
  // Library versions, threads, precision, timer: how the numbers were measured.
  virtual nlohmann::json describe() const = 0;
  // needs_input_grad: false for the first layer with parameters (no data gradient).
  virtual LayerMeasurement time_layer(const Layer& l, int batch, bool needs_input_grad,
                                      const TimingPolicy& p) = 0;
  // The layer's kernels made ready to run again and again (PreparedLayer above).
  virtual std::unique_ptr<PreparedLayer> prepare_layer(const Layer& l, int batch,
                                                       bool needs_input_grad) = 0;
  // The SF rebuild's GEMM below, ready to run: forward() runs it once; backward() nothing.
  virtual std::unique_ptr<PreparedLayer> prepare_rebuild(std::int64_t m, std::int64_t n,
                                                         std::int64_t k) = 0;
  // The SF rebuild: grad W (m x n) = U (m x k) * V^T (k x n), one GEMM.
  virtual KernelTime time_rebuild(std::int64_t m, std::int64_t n, std::int64_t k,
                                  const TimingPolicy& p) = 0;
  // Host<->device copies of each size, pinned and pageable, both directions.
  virtual std::vector<CopyPoint> time_copies(const std::vector<double>& sizes_bytes,
                                             const TimingPolicy& p) = 0;
  // One copy of `bytes` within the device's own memory (the roofline's memory ceiling:
  // `bytes` read and `bytes` written): cudaMemcpy device to device, or memcpy on the CPU.
  virtual KernelTime time_device_copy(double bytes, const TimingPolicy& p) = 0;
  // True when time_copies measures a real bus (PCIe); false for host memcpy stand-ins.
  virtual bool copies_cross_a_bus() const = 0;
  // Waits for every kernel its prepared layers launched (PreparedLayer::launch_forward).
  virtual void synchronize() {}
  // Marks between the passes of a queued step. mark() records where the work launched so
  // far ends: a GPU backend records an event on its stream; this default, for a backend that
  // runs each launch when it is made, reads the host clock. After synchronize(),
  // marked_intervals_s() gives the time from each mark to the next, in order (one fewer than
  // the marks), and forgets them: each pass's time inside the queue, gaps included.
  // (Inline: the GPU plugin, built apart, derives from this class.)
  virtual void mark() { host_marks_.push_back(std::chrono::steady_clock::now()); }
  virtual std::vector<double> marked_intervals_s() {
    std::vector<double> out;
    for (std::size_t i = 1; i < host_marks_.size(); ++i)
      out.push_back(std::chrono::duration<double>(host_marks_[i] - host_marks_[i - 1]).count());
    host_marks_.clear();
    return out;
  }

 private:
  std::vector<std::chrono::steady_clock::time_point> host_marks_;
};

// A backend that cannot run here (not built, or no device). what() is one clear line.
class BackendUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Per layer: whether its backward computes the gradient of its input. Not for the first
// layer with parameters (its input is the image); only conv and fc consult it.
std::vector<bool> needs_input_grad(const Network& net);

// "cpu" or "gpu"; threads: CPU backend GEMM threads, honoured only in OpenMP builds
// (the shipped CMake builds it single-threaded, see kernels/CMakeLists.txt); device: the
// GPU backend's CUDA device index (a node's GPU g in a live run).
// Throws BackendUnavailable, or InputError for an unknown name.
std::unique_ptr<KernelBackend> make_backend(const std::string& name, Precision precision,
                                            int threads, int device = 0);
// Whether the GPU backend plugin was built (CUDA + cuDNN found at configure time).
bool gpu_backend_built();
// CUDA devices the GPU backend would see: 0 where it is not built, cannot load, or finds none.
int gpu_device_count();

}  // namespace possim::calibrate
