// How far a simulation has got, in memory the forked child shares with its parent
// (mmap MAP_SHARED before the fork; lock-free atomics are address-free): the child's
// executor counts, the parent shows a progress line for a long point, and the child
// stops a run that overshoots its event budget.
#pragma once
#include <atomic>
#include <cstdint>

namespace possim::sim {

struct SimProgress {
  std::atomic<std::uint64_t> instances_done{0};
  std::atomic<std::uint64_t> instances_total{0};
  std::atomic<std::uint64_t> time_advances{0};  // SimGrid's clock steps so far
  std::atomic<std::uint64_t> iterations_done{0};
  // The simulation's budget of clock steps, derived from the plan: kStepsPerEvent for
  // each task instance and flow it plans, plus kStepsBase. A run past it is stopped with
  // a message instead of spinning (a flow whose time a double cannot resolve).
  std::uint64_t step_budget = 0;
  static constexpr std::uint64_t kStepsPerEvent = 64, kStepsBase = 1000000;
};

}  // namespace possim::sim
