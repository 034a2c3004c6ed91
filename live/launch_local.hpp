// Runs a plan live on this machine: one process per node (fork), each in a network
// namespace of its own joined to the others by veth links into a bridge, every link shaped
// with tc to the plan's NIC rate (net/netns.hpp); or, unshaped, over loopback. This
// process coordinates: it hands out the roster, starts the run, follows each node's
// iterations, and collects what each recorded.
//
// Failures end the run, never hang it: a node that dies (killed, crashed) is seen at once
// by its control socket closing and named with the iteration it was in; a node that stops
// making progress is named after `stall_timeout_s`. Every child is killed and every
// namespace deleted on every path out, and on SIGINT/SIGTERM (model/run/child_processes).
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "live/arithmetic/settings.hpp"
#include "live/kernel_stream.hpp"
#include "model/plan/sync_plan.hpp"

namespace possim::live {

struct MpiRank;

struct LaunchOptions {
  bool netns = true;            // shaped namespaces (needs root); false: loopback, unshaped
  int mtu = 1500;
  // How long a packet may wait in a link's shaper (tc tbf latency): the switch buffer, in
  // time. Deep by default (50 ms): no loss even under 8 nodes' PS incast, as SimGrid's
  // fluid sharing assumes. A shallow one (2 ms) shows TCP incast: losses, retransmission
  // timeouts of 200 ms, and PS up to 40% slower than predicted (reports/validation/).
  double queue_ms = 50;
  // The shaper's token bucket (tc tbf burst), bytes; 0: 4 ms of the line rate, which lets
  // tbf hold fast rates on a loaded machine's timers, and sends a flow shorter than that
  // at veth speed after an idle link has refilled its bucket.
  double burst_bytes = 0;
  double stall_timeout_s = 30;  // no message from any node for this long ends the run
  // Before the start: a node prepares its kernels (cuDNN benchmarks every layer's algorithms:
  // resnet50's 175 layers take about 40 s on an H200) and connects to its peers.
  double prepare_timeout_s = 30;
  double connect_timeout_s = 30;
  std::function<void(const std::string&)> progress;
  arith::Settings arithmetic;  // enabled: the model evaluated for real (live/node.hpp)
  KernelSettings kernels;      // enabled: the layers' real kernels (live/kernel_stream.hpp)
};

struct LiveRun {
  double go_s = 0;                      // when the nodes were told to start (live/emulated.hpp clock)
  std::vector<nlohmann::json> reports;  // per node: its "finished" message
  // Per node: the bytes its sockets carried by iteration ("counters", sent at quit: a node
  // that has finished its own instances may still serve its peers' pulls).
  std::vector<nlohmann::json> counters;
  std::vector<std::string> tc_commands; // what shaped the links (netns)
  double link_rate_gbit = 0;            // the shaped rate of every link; 0: loopback
  // Per node, what its link carried during the run by the kernel's counters (netns only, net/netns.hpp;
  // from before the processes start: their set-up adds a few kB): {tx, rx} bytes.
  std::vector<std::pair<double, double>> wire_bytes;
  double wall_s = 0;
};

// Throws std::runtime_error naming the node and iteration on any failure.
LiveRun run_local(const SyncPlan& plan, const LaunchOptions& opt);

}  // namespace possim::live
