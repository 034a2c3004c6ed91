// A PCIe copy between a worker's leader GPU and its host memory, in the task's direction:
// a flow on the PCIe star (make_pcie_network) with the star backend; with SimGrid's own
// solver, a Comm over the GPU's PCIe link, host to host (no receiving actor), in an actor.
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
  core_.expect(in, 1);
  const auto landed = [this, in, d2h, bytes = task.bytes](double t0) {
    recorder_.copy_landed(in.t, in.who, d2h, bytes);
    recorder_.timeline().instance(in, t0, now());
    complete(in);
  };
  if (pcie_) {
    const int gpu = int(w), mem = int(platform_.pcie.size() + w);
    pcie_->send(d2h ? gpu : mem, d2h ? mem : gpu, double(wire_bytes(task.bytes)),
                [landed, t0 = now()] { landed(t0); });
    return;
  }
  sg4::Host* src = d2h ? platform_.gpu[w] : platform_.mem[w];
  sg4::Host* dst = d2h ? platform_.mem[w] : platform_.gpu[w];
  sg4::Actor::create("copy", src, [this, src, dst, bytes = task.bytes, landed] {
    const double t0 = now();
    sg4::Comm::sendto(src, dst, wire_bytes(bytes));
    landed(t0);
  });
}

}  // namespace possim::sim
