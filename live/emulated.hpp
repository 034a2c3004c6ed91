// Emulated resources of a live run: what this machine does not have (GPUs, PCIe links, a
// GPU-to-GPU path, the servers' apply work at the profile's rate) occupies wall-clock
// time exactly as the simulator's model of it would, so that the only thing a live run
// adds to the simulation is the network, which is real.
//
// An EmulatedResource serves jobs of `amount` units at `rate` units per second, each after a fixed
// `delay_s` (a link's latency), by processor sharing (every job in service progresses at
// rate / n, as a SimGrid host or link shares itself) or first in, first out (a GPU's
// compute stream). It sleeps on a condition variable until the next completion: no core
// is spun, so the emulation leaves the CPUs to the real network stack.
//
// A thread wakes late on a busy machine, never early. Lateness must not accumulate along
// a stream: a FIFO job starts when the one before it was due to end (not when the thread
// noticed), and shared jobs progress by the time that really passed. The thread asks for
// a 1 ns timer slack and, where the process may (root), a real-time priority: it sleeps
// almost all the time, and when it wakes it is a GPU finishing a kernel.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <string>
#include <thread>

namespace possim::live {

using Clock = std::chrono::steady_clock;

class EmulatedResource {
 public:
  enum class Discipline { sharing, fifo };
  // Called from the resource's thread when a job is done, with its start (when it began
  // to be served, after the delay and any queue) and end, in seconds on Clock.
  using Done = std::function<void(double start_s, double end_s)>;

  EmulatedResource(std::string name, double rate, Discipline d);
  ~EmulatedResource();  // stops the thread; jobs not done are dropped
  EmulatedResource(const EmulatedResource&) = delete;
  EmulatedResource& operator=(const EmulatedResource&) = delete;

  // since_s >= 0: the job was ready then (on Clock, possibly past), not now. FIFO only:
  // a shared resource's jobs cannot be back-dated without changing the others' shares.
  void submit(double amount, double delay_s, double since_s, Done done);
  // From now on, jobs progress at rate / slowdown (interference; 1: full rate). The work a
  // job in service has done so far stays done.
  void set_slowdown(double slowdown);
  const std::string& name() const { return name_; }

 private:
  struct Job {
    double left;
    Clock::time_point eligible;  // after its delay
    double start_s = -1;
    Done done;
    Clock::time_point due{};  // FIFO: when it ends, fixed when it starts
  };
  void loop();

  double rate() const { return rate_ / slowdown_; }

  std::string name_;
  double rate_;
  double slowdown_ = 1, wanted_slowdown_ = 1;  // the one in force, and the one asked for
  Discipline discipline_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::list<Job> jobs_;  // submission order
  Clock::time_point fifo_free_{};  // FIFO: when the job before ended (was due to)
  bool stop_ = false;
  std::thread thread_;
};

// The calling thread asks for a 1 ns timer slack and, where the process may (root), the
// lowest real-time priority, so that an emulated kernel ends on time on a busy machine.
// Only the emulation's threads: given to the socket threads too, it starved the kernel's
// network processing (GoogLeNet on 8 nodes: 0.27 s per iteration instead of 0.22 s).
void prefer_prompt_wakeups();

// Seconds since the clock's epoch (a process-independent steady clock: CLOCK_MONOTONIC,
// shared by every process and network namespace of this machine).
double now_s();

}  // namespace possim::live
