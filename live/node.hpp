// One node process of a live run. It runs, through the event-driven engines' shared core
// (model/run/executor_core.hpp), the instances of the plan that are its own: its worker's tasks (a node is one
// worker: its leader GPU, its other GPUs and its host), the slices of the shards it hosts,
// and its replica of every cluster task (barriers). What its instances wait for on other
// nodes comes as frames: a push's flow landing at a shard (Poseidon's per-KV update
// counting), a peer's completion ("done"), a collective's send.
//
// GPU kernels (unless kernel compute runs them for real: live/kernel_stream.hpp), PCIe
// copies, the GPU-to-GPU path and the servers' apply work are emulated
// (live/emulated.hpp) at the plan's rates; flows are real bytes over real TCP
// (live/mesh.hpp). Per-message software costs, latency and TCP's goodput are what this
// machine's stack really pays, so none is added.
//
// Control protocol with the coordinator (JSON frames, net/wire.hpp): node -> hello
// {port}; coordinator -> roster {addresses, ports}; node -> ready; coordinator -> go;
// node -> iteration {t} as each of its iterations completes; node -> finished {records,
// gpu0_busy, and with arithmetic compute: loss by iteration, params}; coordinator -> quit; node -> counters {sent, received} (bytes by iteration,
// once its peers can need nothing more of it). On any failure: node -> error {message},
// exit 1.
#pragma once
#include <string>

#include "live/arithmetic/settings.hpp"
#include "live/kernel_stream.hpp"
#include "model/plan/sync_plan.hpp"

namespace possim::live {

struct NodeOptions {
  double connect_timeout_s = 30;
  // Arithmetic compute: the model evaluated for real and values in every flow
  // (live/arithmetic/node_math.hpp); else emulated compute and zeros.
  arith::Settings arithmetic;
  // Kernel compute: each GPU task of a layer's pass runs the layer's real kernels
  // (live/kernel_stream.hpp); else emulated for its modelled time.
  KernelSettings kernels;
};

// A node's exit status when its coordinator's channel broke (the coordinator died): it
// stops at once and quietly, with nothing to report to.
constexpr int kCoordinatorGone = 3;

// Runs node `node` of `plan` (already scaled: model/plan/network_scale.hpp) until the
// coordinator on ctrl_fd says quit. Returns the process's exit status.
int run_node(const SyncPlan& plan, int node, int ctrl_fd, const std::string& address, const NodeOptions& opt);

}  // namespace possim::live
