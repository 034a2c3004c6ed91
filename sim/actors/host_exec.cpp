// Work measured in bytes on a host: a copy over a node's GPU-to-GPU path (the d2d host
// runs at the intra-node rate), a shard's apply of a slice on its node's CPU (at the
// apply rate: every worker's update not dropped, plus the fixed per-request part), or a
// worker's own update applied on its node's CPU (the same host: they contend).
#include "sim/executor.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

void Executor::launch_host_exec(const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  double amount = task.bytes;
  sg4::Host* host = nullptr;
  if (task.resource == Resource::server_cpu) {  // `who` is a slice index, on its shard's node
    const Slice& s = plan_.tensors[std::size_t(task.tensor)].slices[std::size_t(in.who)];
    host = platform_.node[std::size_t(plan_.shard_node(s.shard))];
    amount = full().stragglers.active(in.t) * s.bytes + task.duration_s * host->get_speed();
  } else if (task.resource == Resource::host_cpu) {  // the worker's node's CPU, bytes at its apply rate
    host = platform_.node[std::size_t(fold_.worker_node(in.who))];
  } else {
    host = platform_.d2d[std::size_t(in.who)];
  }
  if (amount <= 0) {
    complete(in);
    return;
  }
  const bool gpu_path = task.resource == Resource::intra_node;
  sg4::Actor::create(task.display_label(), host, [this, in, amount, gpu_path] {
    const double t0 = now();
    if (gpu_path) comm_kernel(in.who, +1);
    sg4::this_actor::execute(amount);
    if (gpu_path) comm_kernel(in.who, -1);
    recorder_.timeline().instance(in, t0, now());
    complete(in);
  });
}

}  // namespace possim::sim
