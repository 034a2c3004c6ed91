// The simulated machines, built in code: one star zone (a non-blocking switch) where
//   node-n  : a node's host CPU (server shard work), behind a split-duplex NIC link;
//   gpu-n   : the node's leader GPU, behind a split-duplex PCIe link;
//   gpu-n.g : the node's other GPUs (g = 1..), which compute alongside the leader; their
//             gradients reach it through d2d-n, so they need no links of their own;
//   mem-n   : the node's host memory, the other end of PCIe copies;
//   d2d-n   : the node's GPU-to-GPU path for gathering on the leader (several GPUs);
//   ctl-n   : where network actors run (the lmm backend's senders of node n, the star
//             backend's one actor on ctl-0; sim/network/): its routes are node-n's (the
//             same NIC link), and its own CPU runs their idle waits, so that node-n's CPU
//             is left to the shard's applies.
// A route node-a -> node-b crosses a's NIC up and b's NIC down, so each direction of a
// NIC link carries half the one-way latency. Hosts' speeds turn amounts into seconds:
// gpu-n runs 1e9 "flops" a second (a task's seconds x 1e9), node-n applies updates at
// the profile's bytes/s, d2d-n copies at the intra-node rate. Where the plan has
// interference (Rates::interference_*), gpu-n and d2d-n have a second power state at
// their speed divided by the slowdown, which the executor switches to while a
// communication kernel (for gpu-n) or a GPU kernel (for d2d-n) is in flight on the worker.
#pragma once
#include <vector>

#include <simgrid/s4u.hpp>

#include "model/plan/sync_plan.hpp"

namespace possim::sim {

constexpr double kGpuFlopsPerSecond = 1e9;

struct Platform {
  std::vector<simgrid::s4u::Host*> node, gpu, mem, d2d, ctl;
  std::vector<std::vector<simgrid::s4u::Host*>> follower;  // per node: GPUs 1.. (not the leader)
  std::vector<simgrid::s4u::SplitDuplexLink*> nic, pcie;  // UP = tx / d2h, DOWN = rx / h2d
  std::vector<simgrid::s4u::SplitDuplexLink*> membus;     // per worker: mem-n's link
};

// Sets the network model (call right after creating the Engine, whose command line
// carries the context settings): CM02 without cross-traffic or TCP window cap, so a flow
// alone on its path takes exactly latency + bytes / bandwidth (goodput is already in
// the plan's NIC rate, where the profile puts it and the calibrator fits it).
void configure_engine();
// `server_nic_share`: the fraction of the NIC rate a dedicated server node's links get
// (1, or 1/N when N workers are folded onto one: sim/fold.hpp).
Platform build_platform(const SyncPlan& plan, double server_nic_share = 1.0);

}  // namespace possim::sim
