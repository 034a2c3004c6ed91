#include "model/run/fork_gate.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>

namespace possim::fork_gate {

namespace {

std::mutex mutex;
std::condition_variable changed;
int busy = 0;          // threads inside a Busy scope, not idle
std::atomic<bool> forking{false};  // a Quiet holds the gate (let_fork() reads it unlocked)
bool in_child = false; // this process is a forked child: single-threaded, the gate unused
thread_local int depth = 0;  // the calling thread's nested Busy scopes

void enter() {
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [] { return !forking; });
  ++busy;
}

void leave() {
  const std::lock_guard<std::mutex> lock(mutex);
  --busy;
  changed.notify_all();
}

// Sets the calling thread's Busy scopes aside; returns how deep they were.
int set_aside() {
  const int d = depth;
  if (d > 0) leave();
  depth = 0;
  return d;
}

void take_back(int d) {
  if (d > 0) enter();
  depth = d;
}

}  // namespace

Busy::Busy() {
  if (!in_child && depth++ == 0) enter();
}

Busy::~Busy() {
  if (!in_child && --depth == 0) leave();
}

Idle::Idle() : depth_(in_child ? 0 : set_aside()) {}

Idle::~Idle() {
  if (!in_child) take_back(depth_);
}

Quiet::Quiet() {  // idle_ has set this thread's Busy scopes aside
  if (in_child) return;
  std::unique_lock<std::mutex> lock(mutex);
  changed.wait(lock, [] { return !forking; });
  forking = true;
  changed.wait(lock, [] { return busy == 0; });
}

Quiet::~Quiet() {  // then idle_ takes them back
  if (in_child) return;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    forking = false;
  }
  changed.notify_all();
}

void let_fork() {
  if (in_child || depth == 0 || !forking.load(std::memory_order_acquire)) return;
  take_back(set_aside());
}

void forked_child() {
  in_child = true;
  depth = 0;
}

}  // namespace possim::fork_gate
