#include "model/plan/transport.hpp"

#include <algorithm>
#include <cstdio>

#include "model/input/error.hpp"

namespace possim {

TransportRates transport_rates(const Profile& p, const Cluster& c) {
  TransportRates t;
  t.kind = c.transport;
  if (c.transport == Transport::tcp) {
    t.wire_efficiency = p.tcp_goodput;
    t.host_bytes_per_s = p.tcp_host_bytes_per_s;
    return t;
  }
  if (!(p.rdma_efficiency > 0))
    throw InputError(p.path, "rdma_efficiency",
                     "the scenario's cluster.transport is \"rdma\" but profile " + p.name +
                         " has no RDMA efficiency",
                     "a profile with rdma_efficiency (profile derive writes one), or \"transport\": \"tcp\"");
  t.wire_efficiency = p.rdma_efficiency;
  return t;
}

double payload_bytes_per_s(double line_bytes_per_s, const TransportRates& t) {
  const double wire = line_bytes_per_s * t.wire_efficiency;
  return t.host_bytes_per_s > 0 ? std::min(wire, t.host_bytes_per_s) : wire;
}

bool host_binds(double line_bytes_per_s, const TransportRates& t) {
  return payload_bytes_per_s(line_bytes_per_s, t) < line_bytes_per_s * t.wire_efficiency;
}

std::string describe(const TransportRates& t) {
  char buf[160];
  if (t.host_bytes_per_s > 0)
    std::snprintf(buf, sizeof buf, "%s: payload = min(line rate x %.4g, the host's %.3g Gbit/s) per direction",
                  to_string(t.kind), t.wire_efficiency, t.host_bytes_per_s * 8 / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%s: payload = line rate x %.4g per direction%s", to_string(t.kind),
                  t.wire_efficiency, t.gpudirect() ? ", GPUDirect (no host copy)" : "");
  return buf;
}

}  // namespace possim
