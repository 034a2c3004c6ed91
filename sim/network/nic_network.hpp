// The SimGrid engine's one narrow network API: a flow from one node's NIC to another's,
// and a call at the instant it lands. Point-to-point flows (sim/actors/flows.cpp) and
// collectives' rounds (sim/actors/collective.cpp) go through it; with the star backend,
// so do PCIe copies (sim/actors/pcie_copy.cpp) on a star of their own; host work stays
// SimGrid activities.
//
// Two backends carry it, on the same star of split-duplex NIC links (sim/platform.hpp)
// and the same fluid model (CM02: max-min fair sharing after the route's latency):
//  * star (default): possim's solver for that star (sim/network/star_sharing.hpp), driven
//    by one actor; a solve over the moving node pairs when flows start or land.
//  * lmm: a SimGrid Comm per flow, shared by SimGrid's own max-min solver (SimGrid's
//    reference implementation of the model; O(flows x links) per event).
// tests/sim/test_simgrid_network.cpp holds the two to the same results on whole runs.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/network/star_sharing.hpp"
#include "sim/platform.hpp"
#include "sim/simgrid_engine.hpp"

namespace possim::sim {

class NicNetwork {
 public:
  using Landed = std::function<void()>;
  using Multiplicity = StarSharing::Multiplicity;
  virtual ~NicNetwork() = default;
  // From an actor, at now(): `bytes` (whole, >= 1: wire_bytes) from src's tx to dst's rx
  // (dst == src: out to the switch and back). `landed` runs in some actor when it lands; it
  // may send more. `m`: how many flows of the modelled cluster it stands for on each link
  // (a run folded by classes, sim/fold.hpp; the star backend only).
  virtual void send(int src_node, int dst_node, double bytes, Landed landed, Multiplicity m = {}) = 0;
  // Nothing more will be sent and every flow has landed: the backend's actors end.
  virtual void stop() = 0;
  // Between hold() and release(), sends wait for release() to wake the backend: flows
  // sent by many calls in one turn of one actor (sim/delays.hpp) start together, as those
  // of many actors woken at one instant do, in one solve instead of one each.
  virtual void hold() {}
  virtual void release() {}
  // NIC link j (node n: 2n tx, 2n+1 rx): its highest load over an interval of positive
  // length, bytes/s.
  virtual double peak_bytes_per_s(std::size_t link) const = 0;
};

// The backend over `platform`'s NICs; `node_inbox[n]` is a mailbox on node n that some
// actor drains (the lmm backend's comms end there).
std::unique_ptr<NicNetwork> make_nic_network(NetworkBackend backend, const Platform& platform,
                                             std::vector<simgrid::s4u::Mailbox*> node_inbox);
// The star backend over `platform`'s PCIe links, for copies: endpoint w is worker w's GPU
// (link 2w: its PCIe d2h, 2w+1: h2d), endpoint W + w its host memory. A copy alone on its
// lane takes the same latency + bytes / bandwidth as a SimGrid Comm on those links, and
// copies in flight together share a lane max-min fairly, as SimGrid's CM02 shares it.
// Each copy was an actor (16 KiB of stack): 77,824 alive at once in a full PS run of
// 4,096 nodes (bench/results/simgrid_scale.md).
std::unique_ptr<NicNetwork> make_pcie_network(const Platform& platform);

}  // namespace possim::sim
