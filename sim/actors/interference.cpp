// Compute/communication interference (model/plan/interference.hpp): while a worker has a
// communication kernel in flight its GPUs run at their second power state (speed divided
// by Rates::interference_kernel_slowdown), and while one of its GPU kernels runs its
// GPU-to-GPU path does (divided by interference_comm_slowdown). SimGrid re-shares the
// executions in progress at the new speed, so a kernel overlapped for part of its time is
// slowed for that part only: the fluid model the analytic engine's fixed point solves.
#include "model/plan/interference.hpp"
#include "sim/executor.hpp"

namespace possim::sim {

void Executor::comm_kernel(int worker, int delta) {
  if (plan_.rates.interference_kernel_slowdown == 1 || !crossed_zero(comm_kernels_[std::size_t(worker)], delta)) return;
  const unsigned long state = comm_kernels_[std::size_t(worker)] > 0 ? 1 : 0;
  platform_.gpu[std::size_t(worker)]->set_pstate(state);
  for (simgrid::s4u::Host* g : platform_.follower[std::size_t(worker)]) g->set_pstate(state);
}

void Executor::kernel_running(int worker, int delta) {
  if (plan_.rates.interference_comm_slowdown == 1 || !crossed_zero(kernels_running_[std::size_t(worker)], delta)) return;
  platform_.d2d[std::size_t(worker)]->set_pstate(kernels_running_[std::size_t(worker)] > 0 ? 1 : 0);
}

}  // namespace possim::sim
