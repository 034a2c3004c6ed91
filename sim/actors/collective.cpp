// A collective's part on one worker (model/collective.hpp): one actor per channel runs
// its rounds in order; in a round it pays the per-message cost of its sends, sends through
// the network backend, takes one flow from each peer it expects (buffered: it may have
// landed already), and waits for its own sends to land.
#include <array>
#include <tuple>

#include "model/plan/collective.hpp"
#include "sim/executor.hpp"

namespace sg4 = simgrid::s4u;

namespace possim::sim {

void Executor::launch_collective(const Instance& in) {
  const std::size_t channels =
      collective_schedule(plan_.tasks[in.task].collective, full().workers, in.who, 0, plan_.tasks[in.task].chunks)
          .size();
  if (full().workers < 2 || channels == 0) {
    complete(in);
    return;
  }
  repeats_.collective_launched(in.t);
  core_.expect(in, int(channels));
  for (std::size_t c = 0; c < channels; ++c)
    sg4::Actor::create("collective", platform_.node[std::size_t(plan_.worker_node(in.who))],
                       [this, in, c] { run_channel(in, int(c)); });
}

void Executor::run_channel(const Instance& in, int channel) {
  const Task& task = plan_.tasks[in.task];
  const std::vector<CollectiveRound> rounds =
      collective_schedule(task.collective, full().workers, in.who, task.bytes, task.chunks)[std::size_t(channel)];
  // One slot count per (stream, sender, receiver) of this instance: the k-th receive from
  // a peer on a stream takes that peer's k-th send on it.
  // Folded (a ring: the same on every worker up to rotation), the k-th receive from the
  // worker d places back is worker 0's own k-th send to the worker d places ahead, routed
  // out over node 0's tx and back in over its rx (sim/fold.hpp): one slot per offset.
  const int p = full().workers;
  // A ring's rounds use the same two slots over and over: the last few are kept here, not
  // looked up in the executor's map 2(P-1) times.
  std::array<std::pair<std::tuple<int, int, int>, sg4::SemaphorePtr>, 4> recent{};
  std::size_t next_recent = 0;
  const auto slot = [&](int stream, int src, int dst) {
    if (fold_.on()) std::tie(src, dst) = std::make_pair(0, ((dst - src) % p + p) % p);
    const std::tuple<int, int, int> key{stream, src, dst};
    for (const auto& [k, sem] : recent)
      if (sem && k == key) return sem;
    sg4::SemaphorePtr& s = slots_[{in.t, int(in.task), stream, src, dst}];
    if (!s) s = sg4::Semaphore::create(0);
    recent[next_recent++ % recent.size()] = {key, s};
    return s;
  };
  // Receive buffers (NCCL's slots): a peer's send moves as soon as it is posted, and a
  // receive takes what has already landed, so a pipelined sender runs ahead of a busy
  // receiver instead of waiting for it to ask.
  const int me = fold_.node(plan_.worker_node(in.who));
  const double t0 = now();
  if (plan_.rates.collective_launch_s > 0) sg4::this_actor::sleep_for(plan_.rates.collective_launch_s);
  comm_kernel(in.who, +1);  // its reduce-copy kernel, until its last round
  // Each round waits for its own sends to land: one count, back at 0 after every round.
  const sg4::SemaphorePtr sent = sg4::Semaphore::create(0);
  for (const CollectiveRound& r : rounds) {
    if (plan_.rates.per_message_s > 0 && !r.sends.empty())
      sg4::this_actor::sleep_for(plan_.rates.per_message_s * double(r.sends.size()));
    for (const CollectiveSend& s : r.sends)
      network_->send(me, fold_.node(plan_.worker_node(s.peer)), double(wire_bytes(s.bytes)),
                     [to = slot(s.stream, in.who, s.peer), sent] {
                       to->release();
                       sent->release();
                     });
    for (const CollectiveReceive& x : r.receives) slot(x.stream, x.peer, in.who)->acquire();
    for (std::size_t i = 0; i < r.sends.size(); ++i) sent->acquire();
    for (const CollectiveSend& s : r.sends) {
      HostFlow f;
      f.src_node = me;
      f.dst_node = fold_.node(plan_.worker_node(s.peer));
      f.bytes = s.bytes;
      flow_landed(in, f);
    }
  }
  comm_kernel(in.who, -1);
  if (core_.last_part(in)) {
    recorder_.timeline().instance(in, t0, now());
    complete(in);
  }
}

}  // namespace possim::sim
