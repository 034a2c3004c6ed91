// A PCIe copy between a worker's leader GPU and its host memory: one comm over the GPU's
// PCIe link, in the task's direction.
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
  sg4::Mailbox* dst = d2h ? mem_inbox(in.who) : gpu_inbox(in.who);
  core_.expect(in, 1);
  sg4::Actor::create("copy", src, [this, in, dst, bytes = task.bytes, d2h] {
    const double t0 = now();
    dst->put(payload(), wire_bytes(bytes));
    recorder_.copy_landed(in.t, in.who, d2h, bytes);
    recorder_.timeline().instance(in, t0, now());
    complete(in);
  });
}

}  // namespace possim::sim
