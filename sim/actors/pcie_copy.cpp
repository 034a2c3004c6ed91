// A PCIe copy between a worker's leader GPU and its host memory: one comm over the GPU's
// PCIe link, in the task's direction, host to host (no receiving actor).
#include "sim/executor.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

void Executor::launch_copy(const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  if (task.bytes <= 0) {
    complete(in);
    return;
  }
  const std::size_t w = std::size_t(in.who);
  const bool d2h = task.resource == Resource::pcie_d2h;
  sg4::Host* src = d2h ? platform_.gpu[w] : platform_.mem[w];
  sg4::Host* dst = d2h ? platform_.mem[w] : platform_.gpu[w];
  core_.expect(in, 1);
  sg4::Actor::create("copy", src, [this, in, src, dst, bytes = task.bytes, d2h] {
    const double t0 = now();
    sg4::Comm::sendto(src, dst, wire_bytes(bytes));
    recorder_.copy_landed(in.t, in.who, d2h, bytes);
    recorder_.timeline().instance(in, t0, now());
    complete(in);
  });
}

}  // namespace possim::sim
