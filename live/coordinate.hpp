// The coordinator of a live run, whatever launched the node processes (live/launch_local.cpp
// forks them; live/launch_mpi.cpp meets mpirun's ranks): it hands out the roster, starts
// the run, follows each node's iterations and collects what each recorded. A node that
// dies is seen at once (its control connection closes, or its process exits) and named
// with the iteration it was in; one that stops making progress is named after the stall
// timeout.
#pragma once
#include <sys/types.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "live/launch_local.hpp"
#include "live/node.hpp"
#include "net/wire.hpp"

namespace possim::live {

// Local child processes of a run (forked node processes), killed and reaped on every path.
struct Children {
  std::vector<pid_t> pid;
  std::vector<int> status;  // -1: still running
  ~Children() { kill_all(); }
  void add(pid_t p) {
    pid.push_back(p);
    status.push_back(-1);
  }
  void kill_all();
  // Reaps what has exited; returns the index of one that did, or -1.
  int poll_exited();
};

// Forks node `node`'s process (tracked in `kids`): in the child, `in_child` runs first
// (closing what the child must not hold, entering a namespace), then the node until the
// coordinator says quit. Returns the coordinator's end of its control connection.
net::Fd spawn_node(const SyncPlan& plan, int node, const std::string& address, const NodeOptions& no,
                   const std::function<void()>& in_child, Children& kids);

// A live run that failed: why, and the end of each iteration every node had completed
// before it did (seconds from go, as the coordinator saw the nodes' reports arrive; the
// nodes' own timestamps are lost with the run).
struct LiveFailure : std::runtime_error {
  LiveFailure(const std::string& what, std::vector<double> ends)
      : std::runtime_error(what), completed_end_s(std::move(ends)) {}
  std::vector<double> completed_end_s;
};

// ctrl[i]: node i's control connection. kids.pid[i], where i < kids.pid.size(), is node
// i's local process (MPI: only node 0's). address[i]: where node i listens, or "" to take
// the address its hello names. Fills run.go_s and run.reports; throws LiveFailure naming
// the node on failure (after killing the local children).
void coordinate(const SyncPlan& plan, std::vector<net::Fd>& ctrl, Children& kids,
                std::vector<std::string> address, const LaunchOptions& opt, LiveRun& run);

// "worker 3" or "server node 9".
std::string role(const SyncPlan& plan, int node);

}  // namespace possim::live
