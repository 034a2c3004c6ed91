// Real compute for a live run ("live": {"compute": "kernels"}): each GPU of a node is a
// stream thread that runs the layers' own kernels through the kernel backends
// (kernels/kernel_backend.hpp): cuDNN and cuBLAS on the node's GPU ("gpu"), or the CPU
// backend's Eigen kernels ("cpu", for machines without one, and for tests). Every layer is
// prepared once before the run (buffers allocated, cuDNN's algorithms found), so a pass
// costs what the kernels cost.
//
// Jobs run first in, first out, as a CUDA stream runs what is queued on it. A job is a
// layer's forward or backward pass or an SFB layer's rebuild GEMM, run for real, or a GPU
// task the backends have no kernels for (1-bit quantization, the framework's fixed
// per-iteration work): that one occupies the stream for its modelled time, as emulated
// compute would.
// A straggler's slowdown s stretches a job by sleeping (s - 1) x its real time after it.
#pragma once
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernels/kernel_backend.hpp"
#include "model/plan/sync_plan.hpp"
#include "model/workload/network.hpp"

namespace possim::live {

// What kernel compute needs besides the plan.
struct KernelSettings {
  const Network* net = nullptr;  // null: not kernel compute
  std::string backend = "gpu";   // "gpu" (cuDNN/cuBLAS) or "cpu" (Eigen)
  // The kernels' math: the scenario's precision as the backends know it (kernel_precision).
  calibrate::Precision precision = calibrate::Precision::fp32;
  // Nodes of a local run share this machine: node n's GPU g is device (n x GPUs per node
  // + g) modulo the devices there are, so a machine of 8 GPUs runs 8 nodes of one GPU on
  // 8 devices. Under mpirun each node has its machine: GPU g is device g.
  bool spread_over_devices = false;
  // Memory a node's prepared layers may hold, all GPUs together (bytes): more is refused
  // with the layer that passed it named, before anything runs. A GPU's own allocations fail
  // with CUDA's message instead.
  double max_bytes = std::numeric_limits<double>::infinity();
  bool enabled() const { return net != nullptr; }
};

class KernelStream {
 public:
  // An SFB layer's rebuild: grad W (m x n) from the peers' factors, inner dimension k.
  struct Rebuild {
    int layer;
    std::int64_t m, n, k;
  };
  using Done = std::function<void(double start_s, double end_s)>;
  using Failed = std::function<void(const std::string& what)>;

  // Prepares every layer of s.net at `batch` on the backend (GPU index `device` for "gpu"), counting
  // what it holds into *bytes_held against s.max_bytes. Throws std::runtime_error naming
  // the GPU, the layer and the backend's reason. A kernel that fails during the run is
  // reported to `failed` (from the stream's thread), and the stream runs nothing more.
  KernelStream(const KernelSettings& s, int batch, const std::vector<Rebuild>& rebuilds, int device,
               double* bytes_held, Failed failed);
  ~KernelStream();  // stops the thread; jobs not run are dropped
  KernelStream(const KernelStream&) = delete;
  KernelStream& operator=(const KernelStream&) = delete;

  // A GPU task of the plan: a layer's pass or a rebuild runs its kernels (layer 0's forward
  // then the framework's per_iteration_s as modelled); any other task its modelled time.
  // All of it stretched by `slowdown`.
  void submit(const Task& task, double per_iteration_s, double slowdown, Done done);
  const std::string& device() const { return device_; }

 private:
  enum class Pass { forward, backward, rebuild, none };
  struct Job {
    int layer;
    Pass pass;
    double extra_s, slowdown;
    Done done;
  };
  void loop();

  std::unique_ptr<calibrate::KernelBackend> backend_;
  std::vector<std::unique_ptr<calibrate::PreparedLayer>> layers_;
  std::map<int, std::unique_ptr<calibrate::PreparedLayer>> rebuilds_;  // by layer
  std::string device_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  Failed failed_;
  bool stop_ = false;
  std::thread thread_;
};

// A worker node's streams, one per GPU, with every layer and rebuild of `plan` prepared.
// Their devices: see KernelSettings::spread_over_devices. Throws as the constructor.
std::vector<std::unique_ptr<KernelStream>> make_kernel_streams(const SyncPlan& plan, int node,
                                                               const KernelSettings& s,
                                                               const KernelStream::Failed& failed);

}  // namespace possim::live
