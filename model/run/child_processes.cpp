#include "model/run/child_processes.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "model/run/fork_gate.hpp"

namespace possim::child_processes {

namespace {

std::mutex mutex;
std::set<pid_t> tracked;
std::atomic<bool> stop_begun{false};
std::map<int, std::function<void()>> cleanups;
int next_cleanup = 0;

}  // namespace

pid_t spawn() {
  // No other thread of possim's pools holds a lock the child could need (model/run/fork_gate.hpp).
  const fork_gate::Quiet quiet;
  // Under the lock: stop_all() sees every child that fork() made, or none.
  const std::lock_guard<std::mutex> lock(mutex);
  if (stop_begun) throw std::runtime_error("interrupted");
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    fork_gate::forked_child();
    // Dies with possim, however possim ends (SIGKILL included, which no handler sees): a
    // simulation or a live node never runs on, reparented to init. The signal comes when
    // the thread that forked it ends; each such thread waits for its child first.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // possim ended before the line above
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    return 0;
  }
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  tracked.insert(pid);
  return pid;
}

int wait(pid_t child) {
  {
    const fork_gate::Idle idle;
    siginfo_t info{};
    while (::waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
    }
  }
  forget(child);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

void forget(pid_t child) {
  const std::lock_guard<std::mutex> lock(mutex);
  tracked.erase(child);
}

void kill_running() {
  const std::lock_guard<std::mutex> lock(mutex);
  for (const pid_t pid : tracked) ::kill(pid, SIGKILL);  // tracked: not yet reaped
}

void stop_all() {
  const std::lock_guard<std::mutex> lock(mutex);
  stop_begun = true;
  for (const pid_t pid : tracked) ::kill(pid, SIGKILL);
  // Reaped here, or by the thread that waits for it (then waitpid says ECHILD): either
  // way it is gone when this returns.
  for (const pid_t pid : tracked)
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  tracked.clear();
  for (auto& [handle, f] : cleanups) f();
  cleanups.clear();
}

int on_stop(std::function<void()> f) {
  const std::lock_guard<std::mutex> lock(mutex);
  cleanups[next_cleanup] = std::move(f);
  return next_cleanup++;
}

void forget_on_stop(int handle) {
  const std::lock_guard<std::mutex> lock(mutex);
  cleanups.erase(handle);
}

bool stopping() { return stop_begun; }

}  // namespace possim::child_processes
