#include "model/run/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "model/run/child_processes.hpp"
#include "model/run/fork_gate.hpp"
#include "model/input/error.hpp"

namespace possim {

void parallel_for(std::size_t count, int jobs, const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  const auto stop = [&](std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(mutex);
    next = count;  // stop handing out items
    if (failure) return;
    failure = e;
    child_processes::kill_running();
  };
  const auto loop = [&] {
    for (std::size_t i; (i = next++) < count;) {
      const fork_gate::Busy busy;  // between items, a fork by another thread may go ahead
      try {
        work(i);
      } catch (...) {
        stop(std::current_exception());
      }
    }
  };
  const int threads = int(std::max<std::size_t>(1, std::min<std::size_t>(std::size_t(std::max(jobs, 1)), count)));
  std::vector<std::thread> pool;
  {
    const fork_gate::Busy busy;
    for (int t = 1; t < threads; ++t) pool.emplace_back(loop);
  }
  loop();
  {
    const fork_gate::Idle idle;  // this thread may be an outer loop's, busy: its pool may fork
    for (auto& t : pool) t.join();
  }
  if (failure) std::rethrow_exception(failure);
}

void rethrow_with(const std::string& prefix) {
  try {
    throw;
  } catch (const InputError& e) {
    throw InputError(prefix + e.what());
  } catch (const std::exception& e) {
    throw std::runtime_error(prefix + e.what());
  }
}

}  // namespace possim
