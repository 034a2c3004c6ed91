// Compute/communication interference (model/plan/interference.hpp): while a worker has a
// communication kernel in flight its GPUs run at their second power state (speed divided
// by Rates::interference_kernel_slowdown), and while one of its GPU kernels runs its
// GPU-to-GPU path does (divided by interference_comm_slowdown). SimGrid re-shares the
// executions in progress at the new speed, so a kernel overlapped for part of its time is
// slowed for that part only: the fluid model the analytic engine's fixed point solves.
#include "sim/executor.hpp"

namespace possim::sim {

namespace {
// Whether a count moved between zero and non-zero: the speed to switch.
bool crossed(int before, int after) { return (before == 0) != (after == 0); }
}  // namespace

void Executor::comm_kernel(int worker, int delta) {
  if (plan_.rates.interference_kernel_slowdown == 1) return;
  int& n = comm_kernels_[std::size_t(worker)];
  const int before = n;
  n += delta;
  if (!crossed(before, n)) return;
  const unsigned long state = n > 0 ? 1 : 0;
  platform_.gpu[std::size_t(worker)]->set_pstate(state);
  for (simgrid::s4u::Host* g : platform_.follower[std::size_t(worker)]) g->set_pstate(state);
}

void Executor::kernel_running(int worker, int delta) {
  if (plan_.rates.interference_comm_slowdown == 1) return;
  int& n = kernels_running_[std::size_t(worker)];
  const int before = n;
  n += delta;
  if (crossed(before, n)) platform_.d2d[std::size_t(worker)]->set_pstate(n > 0 ? 1 : 0);
}

}  // namespace possim::sim
