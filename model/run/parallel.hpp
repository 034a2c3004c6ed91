// Running numbered items on a few threads, stopping at the first failure: the loop of a
// sweep (each SimGrid simulation runs in a process of its own, forked by the thread that
// waits for it, so threads are enough to keep every core busy).
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace possim {

// Calls work(i) for each i in [0, count), `jobs` at a time (the calling thread is one of
// them). The first exception work throws stops the loop: no further item starts, the
// simulations under way are killed (child_processes::kill_running) rather than waited for,
// and that exception is rethrown once every thread has returned; later ones are dropped.
void parallel_for(std::size_t count, int jobs, const std::function<void(std::size_t)>& work);

// Rethrows the exception being handled with `prefix` in front of its message, naming the
// item that failed ("tf_stock at 1 nodes, 40 Gbit/s: ..."); an InputError stays one.
[[noreturn]] void rethrow_with(const std::string& prefix);

}  // namespace possim
