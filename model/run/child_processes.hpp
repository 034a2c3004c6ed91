// The child processes possim forks (the SimGrid engine runs each simulation in one),
// tracked so that an interrupt ends them all instead of leaving orphans. Here in model/
// because both the engine that forks (sim/) and the command that handles the signal
// (cli/) depend on it.
#pragma once
#include <sys/types.h>

#include <functional>

namespace possim::child_processes {

// fork(), with the child tracked until forget(). In the child, SIGINT and SIGTERM are
// unblocked again (the parent blocks them for its watcher thread), so a terminal's
// Ctrl-C still ends it, and it is killed when possim dies, even by SIGKILL
// (PR_SET_PDEATHSIG: the thread that forks must outlive the child, as every caller's
// does by waiting for it). Throws std::runtime_error once stop_all() has begun.
pid_t spawn();
void forget(pid_t child);

// Waits for a child of spawn() to end, standing aside for other threads' forks meanwhile
// (model/run/fork_gate.hpp); forgets it, then reaps it: the pid cannot be reused while it is
// tracked, so stop_all() never signals a stranger. Returns its wait status.
int wait(pid_t child);

// SIGKILL every tracked child; whoever waits for it sees it fail. For a sweep that has
// failed at one point and need not finish the others.
void kill_running();

// SIGKILL every tracked child and wait until each is gone; spawn() fails from now on.
// Called once, by the interrupt watcher.
void stop_all();

// Work stop_all() does once the children are gone (a live run deletes the network
// namespaces it made); the handle is for forget_on_stop().
int on_stop(std::function<void()> f);
void forget_on_stop(int handle);

// stop_all() has begun: the process is about to exit on an interrupt, and whatever
// failed because its child was killed should wait for that instead of reporting it.
bool stopping();

}  // namespace possim::child_processes
