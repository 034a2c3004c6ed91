// Calls made after a delay of simulated time, all by one actor: a worker's per-message
// software cost before its flows leave (sim/actors/flows.cpp). An actor each (16 KiB of
// stack) was 1,792 alive at once in a full PS run of 256 nodes, 16 times as many at 4,096
// (bench/results/simgrid_scale.md).
//
// The actor sleeps until the first call is due, or until a call due sooner is queued; it
// then makes every call due by now, in the order due (queued order at the same instant),
// in one turn, so that what they send reaches the network backend in one batch, as the
// actors' sends did when they woke together. A call may queue more.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

namespace possim::sim {

class Delays {
 public:
  // Calls due within this much of now are due now: SimGrid's timing precision, and the
  // star solver's (StarSharing::kResolution_s), so a wait that ends a rounding short of its
  // target does not wait again for nothing.
  static constexpr double kResolution_s = 1e-9;

  // Its actor runs on `host` (which computes nothing for it); `turn(true)` before the
  // calls of one turn, `turn(false)` after (e.g. to hold a network's sends: NicNetwork::hold).
  Delays(simgrid::s4u::Host* host, const std::string& name, std::function<void(bool)> turn = {});
  // From an actor: `call` runs delay_s (>= 0) from now, in this object's actor.
  void after(double delay_s, std::function<void()> call);
  // Nothing more will be queued: the actor ends once every queued call has run.
  void stop();

 private:
  struct Due {
    double at_s;
    std::uint64_t seq;
    std::uint32_t slot;  // in calls_
    bool operator>(const Due& o) const { return at_s != o.at_s ? at_s > o.at_s : seq > o.seq; }
  };
  void run();

  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::function<void(bool)> turn_;
  std::vector<std::function<void()>> calls_;
  std::vector<std::uint32_t> free_;
  std::uint64_t next_seq_ = 0;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr wake_;
  bool running_ = true;  // until it first waits, the actor will look at due_ anyway
  double waiting_until_s_ = std::numeric_limits<double>::infinity();
  bool stop_ = false;
};

}  // namespace possim::sim
