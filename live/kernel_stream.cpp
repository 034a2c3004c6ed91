#include "live/kernel_stream.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "kernels/kernel_backend.hpp"
#include "live/emulated.hpp"

namespace possim::live {

namespace {

std::string mib(double bytes) { return std::to_string(static_cast<long long>(bytes / (1 << 20))) + " MiB"; }

// What preparing a layer will allocate, at most: its input and output with their
// gradients (and a few more of that size for the kernels' own state), its parameters and
// their gradients, and a convolution's im2col scratch (one image's: the CPU backend's; a
// GPU's workspace is shared). Checked before allocating, so that a model too large is
// refused by name instead of exhausting memory.
double bound_bytes(const Layer& l, int batch) {
  double floats = 4.0 * double(batch) * double(l.in.elements() + l.out.elements()) + 2.0 * double(l.params());
  if (l.kind == LayerKind::conv)
    floats += double(l.in.c / std::max(1, l.groups)) * l.kernel_h * l.kernel_w * double(l.out.h * l.out.w);
  return 4.0 * floats;
}

void sleep_s(double s) {
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

}  // namespace

KernelStream::KernelStream(const KernelSettings& s, int batch, const std::vector<Rebuild>& rebuilds,
                           int device, double* bytes_held, Failed failed)
    : failed_(std::move(failed)) {
  const std::string gpu = "GPU " + std::to_string(device);
  try {
    backend_ = calibrate::make_backend(s.backend, s.precision, 1, device);
  } catch (const std::exception& e) {
    throw std::runtime_error(gpu + ": the " + s.backend + " kernel backend cannot run: " + e.what() +
                             (s.backend == "gpu" ? "; a scenario's \"live\": {\"kernel_backend\": \"cpu\"} runs the "
                                                   "CPU backend's kernels instead"
                                                 : ""));
  }
  device_ = backend_->device();
  const std::vector<bool> input_grad = calibrate::needs_input_grad(*s.net);
  const auto refuse = [&](const Layer& l, double bytes) {
    throw std::runtime_error(gpu + ": layer '" + l.name + "' of " + s.net->name + " at batch " +
                             std::to_string(batch) + " brings the node's prepared kernels to " + mib(bytes) +
                             ", over the " + mib(s.max_bytes) +
                             " allowed (kernel compute is for models whose every layer fits at once)");
  };
  const auto prepare = [&](const Layer& l, const char* what, double bound, auto make) {
    if (*bytes_held + bound > s.max_bytes) refuse(l, *bytes_held + bound);
    std::unique_ptr<calibrate::PreparedLayer> p;
    try {
      p = make();
    } catch (const std::exception& e) {
      throw std::runtime_error(gpu + " (" + device_ + "): preparing " + what + "layer '" + l.name + "' of " +
                               s.net->name + ": " + e.what());
    }
    *bytes_held += p->bytes();
    if (*bytes_held > s.max_bytes) refuse(l, *bytes_held);
    return p;
  };
  for (std::size_t i = 0; i < s.net->layers.size(); ++i)
    layers_.push_back(prepare(s.net->layers[i], "", bound_bytes(s.net->layers[i], batch),
                              [&] { return backend_->prepare_layer(s.net->layers[i], batch, input_grad[i]); }));
  for (const Rebuild& r : rebuilds)
    rebuilds_[r.layer] = prepare(s.net->layers.at(std::size_t(r.layer)), "the rebuild of ",
                                 4.0 * double(r.m * r.k + r.k * r.n + r.m * r.n),
                                 [&] { return backend_->prepare_rebuild(r.m, r.n, r.k); });
  thread_ = std::thread([this] { loop(); });
}

KernelStream::~KernelStream() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void KernelStream::submit(const Task& task, double per_iteration_s, double slowdown, Done done) {
  const bool fwd = task.step == Step::forward, rebuild = task.step == Step::rebuild;
  const Pass pass = rebuild ? Pass::rebuild : !task.pass() ? Pass::none : fwd ? Pass::forward : Pass::backward;
  const double extra_s = rebuild ? 0.0 : !task.pass() ? task.duration_s : (fwd && task.layer == 0 ? per_iteration_s : 0.0);
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(Job{task.layer, pass, extra_s, slowdown, std::move(done)});
  }
  cv_.notify_all();
}

std::vector<std::unique_ptr<KernelStream>> make_kernel_streams(const SyncPlan& plan, int node,
                                                               const KernelSettings& s,
                                                               const KernelStream::Failed& failed) {
  const int gpus = std::max(1, plan.cluster.gpus_per_node);
  // Every SFB layer's rebuild: [M x (P1-1)K] x [(P1-1)K x N], K the node's batch
  // (model/strategies/plan_builder.cpp, sfb_sync).
  std::vector<KernelStream::Rebuild> rebuilds;
  for (const Task& t : plan.tasks)
    if (t.step == Step::rebuild) {
      const Layer& l = s.net->layers.at(std::size_t(t.layer));
      rebuilds.push_back({t.layer, l.fc_m, l.fc_n, std::int64_t(plan.batch_per_gpu) * gpus * (plan.workers - 1)});
    }
  const int devices = s.backend == "gpu" ? calibrate::gpu_device_count() : 0;
  const int first = s.spread_over_devices ? node * gpus : 0;
  double held = 0;
  std::vector<std::unique_ptr<KernelStream>> out;
  for (int g = 0; g < gpus; ++g) {
    const int device = devices > 0 ? (first + g) % devices : g;  // none: the backend says so
    out.push_back(std::make_unique<KernelStream>(s, plan.batch_per_gpu, rebuilds, device, &held, failed));
  }
  return out;
}

// No real-time priority here (unlike the emulation's sleeping threads, live/emulated.hpp):
// this thread computes (CPU backend) or waits on its GPU, and at a real-time priority it
// would starve the node's socket threads of the cores they share.
void KernelStream::loop() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (stop_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    const double start = now_s();
    try {
      if (job.pass == Pass::rebuild)
        rebuilds_.at(job.layer)->forward();
      else if (job.pass != Pass::none && job.layer >= 0) {
        calibrate::PreparedLayer& l = *layers_.at(std::size_t(job.layer));
        if (job.pass == Pass::forward)
          l.forward();
        else
          l.backward();
      }
    } catch (const std::exception& e) {
      const std::string what = device_ + ": layer " + std::to_string(job.layer) +
                               (job.pass == Pass::forward    ? " forward"
                                : job.pass == Pass::backward ? " backward"
                                                             : " rebuild") +
                               ": " + e.what();
      {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
      }
      failed_(what);
      return;
    }
    const double ran = now_s() - start;
    sleep_s(job.extra_s * job.slowdown + ran * (job.slowdown - 1));
    job.done(start, now_s());
  }
}

}  // namespace possim::live
