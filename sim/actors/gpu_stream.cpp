// A GPU's compute stream: one actor per GPU runs the kernels handed to it in order of
// readiness, each for its seconds times the node's straggler slowdown in that iteration.
#include "sim/executor.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

// Every GPU of the node runs its share of the batch through a task on all GPUs; the
// leader alone runs the steps on the node's gathered gradient.
void Executor::enqueue_gpu(const Instance& in) {
  const int streams = plan_.tasks[in.task].gpus == GpuSet::all ? gpus_ : 1;
  core_.expect(in, streams);
  for (int g = 0; g < streams; ++g) {
    const std::size_t stream = std::size_t(in.who * gpus_ + g);
    const std::unique_lock<sg4::Mutex> lock(*gpu_mutex_[stream]);
    gpu_queue_[stream].push_back(in);
    gpu_wake_[stream]->notify_one();
  }
}

void Executor::run_gpu(int worker, int gpu) {
  sg4::Actor::self()->daemonize();
  const std::size_t w = std::size_t(worker), stream = std::size_t(worker * gpus_ + gpu);
  // Each GPU of a node on its own lane: "GPU" (the leader), "GPU 1", ...
  const std::string lane = gpu == 0 ? "" : std::string(info(Resource::gpu).track) + " " + std::to_string(gpu);
  for (;;) {
    Instance in{};
    {
      std::unique_lock<sg4::Mutex> lock(*gpu_mutex_[stream]);
      while (gpu_queue_[stream].empty()) gpu_wake_[stream]->wait(lock);
      in = gpu_queue_[stream].front();
      gpu_queue_[stream].pop_front();
    }
    // Stragglers are per node: a node's GPUs share its slowdown.
    const double seconds = plan_.tasks[in.task].duration_s * plan_.stragglers.slowdown[std::size_t(in.t)][w];
    const double t0 = now();
    if (seconds > 0) {
      kernel_running(worker, +1);
      sg4::this_actor::execute(seconds * kGpuFlopsPerSecond);
      kernel_running(worker, -1);
    }
    // Busy for as long as it ran: longer than its seconds where interference slowed it.
    const double busy = plan_.rates.interference_kernel_slowdown != 1 ? now() - t0 : seconds;
    if (gpu == 0) recorder_.gpu_busy(in.t, fold_.by_classes() ? busy * fold_.class_size(int(w)) : busy);
    recorder_.timeline().instance(in, t0, now(), lane);
    if (stream == 0) core_.path().gpu_busy(id(in), t0, now());  // the representative GPU
    const InstanceRef before = gpu_last_[stream];
    gpu_last_[stream] = InstanceRef(id(in));
    if (core_.last_part(in)) {
      // The stream that finished it last says when it started and what it queued behind.
      InstanceTiming& x = core_.timing(in);
      x.queued_behind = t0 > x.ready_s ? before : InstanceTiming::kNone;
      x.start_s = t0;
      x.slowdown = float(plan_.stragglers.slowdown[std::size_t(in.t)][w]);
      complete(in);
    }
  }
}

}  // namespace possim::sim
