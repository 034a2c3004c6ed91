// The network's transport as a payload rate: what a NIC of a given line rate carries per
// direction once the wire's framing and the host have taken their share.
//
//   TCP  (kernel sockets): min(line x tcp_goodput, tcp_host_bytes_per_s). tcp_goodput is
//        the wire's framing (a 1500-byte MTU carries 1448 payload bytes in 1538 on the
//        wire: 0.9415); the host ceiling is what one node's kernel stack moves per direction
//        (copies, interrupts, one core per flow), which a fast NIC reaches long before its
//        line rate and a `tc`-throttled one never does. Every byte is staged through host
//        memory by a PCIe copy.
//   RDMA (InfiniBand, RoCE, with GPUDirect): line x rdma_efficiency, no host ceiling, and
//        the NIC reads and writes GPU memory: no staging copy, unless the stack itself
//        passes over the bytes on the host (a runtime's serialization, a PS client's pass).
#pragma once

#include <string>

#include "model/input/cluster.hpp"
#include "model/input/profile.hpp"

namespace possim {

struct TransportRates {
  double wire_efficiency = 1;   // payload / line rate
  double host_bytes_per_s = 0;  // per node and direction; 0: no ceiling
  Transport kind = Transport::tcp;
  // RDMA's NIC moves GPU memory itself: no PCIe staging copy.
  bool gpudirect() const { return kind == Transport::rdma; }
};

// The profile's rates for the cluster's transport. Throws InputError (naming the profile)
// for RDMA on a profile without an RDMA figure.
TransportRates transport_rates(const Profile& p, const Cluster& c);

// Payload bytes per second one NIC carries each way: min(line x efficiency, host ceiling).
double payload_bytes_per_s(double line_bytes_per_s, const TransportRates& t);

// True when the host's ceiling, not the line, limits what one NIC of `line_bytes_per_s`
// carries: a faster NIC would not help.
bool host_binds(double line_bytes_per_s, const TransportRates& t);

// The rule in one line, for a run's header:
// "tcp: payload = min(line rate x 0.9415, the host's 25.1 Gbit/s) per direction".
std::string describe(const TransportRates& t);

}  // namespace possim
