// Steps of work a point's closed-form evaluation takes: a collective round walked, a send
// summed, a slice placed, an instance listed. CI holds the analytic engine's count per point
// to a committed baseline (tests/model/analytic/test_work_count.cpp, issue 27 item 5): a
// count, unlike wall time on a shared machine, is exact and the same on every run.
#pragma once

#include <cstdint>

namespace possim::work {

// Per thread: a point is evaluated on one thread. Callers add a loop's count once, after
// it, to keep the hot loops free of thread-local accesses.
inline thread_local std::uint64_t steps = 0;
inline void count(std::uint64_t n) { steps += n; }

}  // namespace possim::work
