#include "live/kernel_stream.hpp"

#include <chrono>
#include <stdexcept>

#include "calibrate/kernels.hpp"
#include "live/emulated.hpp"

namespace possim::live {

namespace {

std::string mib(double bytes) { return std::to_string(static_cast<long long>(bytes / (1 << 20))) + " MiB"; }

void sleep_s(double s) {
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

}  // namespace

KernelStream::KernelStream(const KernelSettings& s, int batch, const std::vector<Rebuild>& rebuilds,
                           int device, double* bytes_held, Failed failed)
    : failed_(std::move(failed)) {
  const std::string gpu = "GPU " + std::to_string(device);
  try {
    backend_ = calibrate::make_backend(s.backend, calibrate::Precision::fp32, 1, device);
  } catch (const std::exception& e) {
    throw std::runtime_error(gpu + ": the " + s.backend + " kernel backend cannot run: " + e.what() +
                             (s.backend == "gpu" ? "; a scenario's \"live\": {\"kernel_backend\": \"cpu\"} runs the "
                                                   "CPU backend's kernels instead"
                                                 : ""));
  }
  device_ = backend_->device();
  const std::vector<bool> input_grad = calibrate::needs_input_grad(*s.net);
  const auto prepare = [&](const Layer& l, const char* what, auto make) {
    std::unique_ptr<calibrate::PreparedLayer> p;
    try {
      p = make();
    } catch (const std::exception& e) {
      throw std::runtime_error(gpu + " (" + device_ + "): preparing " + what + "layer '" + l.name + "' of " +
                               s.net->name + ": " + e.what());
    }
    *bytes_held += p->bytes();
    if (*bytes_held > s.max_bytes)
      throw std::runtime_error(gpu + ": layer '" + l.name + "' of " + s.net->name + " at batch " +
                               std::to_string(batch) + " brings the node's prepared kernels to " +
                               mib(*bytes_held) + ", over the " + mib(s.max_bytes) +
                               " allowed (kernel compute is for models whose every layer fits at once)");
    return p;
  };
  for (std::size_t i = 0; i < s.net->layers.size(); ++i)
    layers_.push_back(prepare(s.net->layers[i], "",
                              [&] { return backend_->prepare_layer(s.net->layers[i], batch, input_grad[i]); }));
  for (const Rebuild& r : rebuilds)
    rebuilds_[r.layer] = prepare(s.net->layers.at(std::size_t(r.layer)), "the rebuild of ",
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

void KernelStream::submit(int layer, Pass pass, double extra_s, double slowdown, Done done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(Job{layer, pass, extra_s, slowdown, std::move(done)});
  }
  cv_.notify_all();
}

void KernelStream::loop() {
  prefer_prompt_wakeups();
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
