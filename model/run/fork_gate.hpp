// Forking safely from a process with threads. fork() copies only the thread that calls it:
// a lock that another thread held at that instant stays held in the child for ever, and
// the child hangs at its first use. glibc resets its malloc, stdio and loader locks at
// fork, not every lock it has: the exit-handler list's, which SimGrid's start takes in
// each child (__cxa_atexit) and a parent thread takes whenever it first builds a
// function's static object (the result reader's, on its first result); nor possim's own.
// So the threads of possim's pools (parallel_for) count as busy while they work, and
// child_processes::spawn() forks only once every other busy thread has stood aside:
// between items, at a let_fork() point, or blocked where it holds nothing (waiting for its
// own child, or joining threads).
#pragma once

namespace possim::fork_gate {

// The calling thread may take locks until the end of this scope (scopes nest).
class Busy {
 public:
  Busy();
  ~Busy();
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;
};

// Inside a Busy scope: until the end of this one the calling thread only blocks, holding
// no lock (on a child process, a pipe, a join), so forks go ahead meanwhile.
class Idle {
 public:
  Idle();
  ~Idle();
  Idle(const Idle&) = delete;
  Idle& operator=(const Idle&) = delete;

 private:
  int depth_;
};

// Held across fork(): waits until no other thread is busy and keeps new ones from starting
// work; the caller's own Busy scopes are set aside meanwhile. In the child, after
// forked_child(), it does nothing.
class Quiet {
 public:
  Quiet();
  ~Quiet();
  Quiet(const Quiet&) = delete;
  Quiet& operator=(const Quiet&) = delete;

 private:
  Idle idle_;
};

// A point where a busy thread holds no lock: if a fork is waiting, it goes first. For long
// runs of work between forks (a search evaluating point after point).
void let_fork();

// Called first thing in a forked child: it has one thread, and the gate (whose state may
// have been mid-change in another thread) is never touched again.
void forked_child();

}  // namespace possim::fork_gate
