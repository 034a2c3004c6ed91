#include "cli/interrupt.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "model/run/child_processes.hpp"

namespace possim::cli {

namespace {

std::mutex mutex;
std::vector<std::string> paths;
// Held by without_interrupt() while it writes, and taken for good by the watcher.
std::mutex writing;
std::atomic<bool> interrupted{false};

void watch(sigset_t set) {
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  interrupted = true;
  child_processes::stop_all();
  writing.lock();  // never released: the process ends below
  {
    const std::lock_guard<std::mutex> lock(mutex);
    // The main thread may be removing the same folders (an OutputFolder unwinding as its
    // simulations die): remove_all stops at an entry that vanished under it, so each path
    // is tried again until it is gone (the main thread waits on `mutex` meanwhile).
    for (const auto& p : paths)
      for (int attempt = 0; attempt < 8; ++attempt) {
        std::error_code ec;
        std::filesystem::remove_all(p, ec);
        if (!ec || !std::filesystem::exists(std::filesystem::symlink_status(p, ec))) break;
      }
  }
  _exit(128 + sig);
}

}  // namespace

void handle_interrupts() {
  static std::once_flag once;  // main() calls it for every command; some commands again
  std::call_once(once, [] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread(watch, set).detach();
  });
}

void remove_on_interrupt(const std::string& path) {
  const std::lock_guard<std::mutex> lock(mutex);
  paths.push_back(path);
}

void forget_on_interrupt(const std::string& path) {
  const std::lock_guard<std::mutex> lock(mutex);
  paths.erase(std::remove(paths.begin(), paths.end(), path), paths.end());
}

void without_interrupt(const std::function<void()>& f) {
  const std::lock_guard<std::mutex> lock(writing);
  f();
}

void wait_if_interrupted() {
  // A signal still pending is one the watcher is about to take (a terminal's Ctrl-C
  // reaches the children too, and one may have died of it first).
  sigset_t pending;
  sigpending(&pending);
  if (!interrupted && !sigismember(&pending, SIGINT) && !sigismember(&pending, SIGTERM)) return;
  for (;;) pause();
}

}  // namespace possim::cli
