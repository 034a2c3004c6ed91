// fork() from a pool thread while another pool thread holds a lock: the child must not
// inherit it held (model/run/fork_gate.hpp). Without the gate the holder, which keeps the
// lock nearly all the time, is caught holding it by nearly every fork.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <mutex>

#include "model/run/child_processes.hpp"
#include "model/run/fork_gate.hpp"
#include "model/run/parallel.hpp"

using namespace possim;

namespace {

// Holds `m` for about `us` microseconds of work.
void hold(std::mutex& m, int us) {
  const std::lock_guard<std::mutex> lock(m);
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

}  // namespace

TEST_CASE("a child forked by one pool thread never inherits a lock another pool thread holds", "[fork]") {
  std::mutex m;  // stands for any lock: libc's dl_iterate_phdr, a cache's, a static's guard
  std::atomic<bool> forks_done{false};
  std::atomic<int> caught_held{0}, forks{0}, holds{0};
  constexpr int kForks = 40;
  parallel_for(2, 2, [&](std::size_t i) {
    if (i == 0) {
      // Holds the lock back to back, standing aside only between holds.
      while (!forks_done) {
        hold(m, 200);
        ++holds;
        fork_gate::let_fork();
      }
      return;
    }
    while (holds == 0) {  // the holder is under way
    }
    for (int k = 0; k < kForks; ++k) {
      const pid_t pid = child_processes::spawn();
      if (pid == 0) _exit(m.try_lock() ? 0 : 1);  // the child's copy of the lock
      const int status = child_processes::wait(pid);
      ++forks;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++caught_held;
    }
    forks_done = true;
  });
  CHECK(forks == kForks);
  CHECK(holds > kForks);  // the holder kept holding while the forks went on
  CHECK(caught_held == 0);
}

namespace {

void nothing() {}

// Waits up to `limit_s` for `pid`; kills it if still running then. Whether it exited by itself.
bool ended_within(pid_t pid, double limit_s) {
  const fork_gate::Idle idle;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    ::usleep(1000);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return false;
}

}  // namespace

TEST_CASE("a forked child can register exit handlers while another pool thread registers them", "[fork]") {
  // The hang CI met: SimGrid's start in each child registers exit handlers (__cxa_atexit in
  // sg_config_init) under a glibc lock that fork() does not reset, and the parent's other
  // thread takes that lock whenever it first builds a function's static object (the result
  // reader's field names, on its first result). Here one thread registers handlers back to
  // back while the other forks children that register one.
  std::atomic<bool> forks_done{false};
  std::atomic<int> hung{0}, forks{0}, registered{0};
  constexpr int kForks = 20;
  parallel_for(2, 2, [&](std::size_t i) {
    if (i == 0) {
      while (!forks_done) {
        for (int k = 0; k < 64; ++k) std::atexit(nothing);
        registered += 64;
        fork_gate::let_fork();
      }
      return;
    }
    while (registered == 0) {
    }
    for (int k = 0; k < kForks; ++k) {
      const pid_t pid = child_processes::spawn();
      if (pid == 0) _exit(std::atexit(nothing) == 0 ? 0 : 1);
      if (!ended_within(pid, 5)) ++hung;
      child_processes::forget(pid);
      ++forks;
    }
    forks_done = true;
  });
  CHECK(forks == kForks);
  CHECK(hung == 0);
}

TEST_CASE("the fork gate lets a thread fork while its pool's other threads wait on children or join", "[fork]") {
  // Nested pools: the outer items wait (Idle) on inner pools whose threads fork; none of it
  // may deadlock, and every child runs.
  std::atomic<int> ran{0};
  parallel_for(3, 3, [&](std::size_t) {
    parallel_for(3, 3, [&](std::size_t) {
      const pid_t pid = child_processes::spawn();
      if (pid == 0) _exit(7);
      const int status = child_processes::wait(pid);
      if (WIFEXITED(status) && WEXITSTATUS(status) == 7) ++ran;
    });
  });
  CHECK(ran == 9);
}
