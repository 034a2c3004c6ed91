#include "model/planning/binding.hpp"

#include <cstdio>

namespace possim {

namespace {
constexpr double kNegligible = 0.02;  // of the iteration: below it the GPU is the limit
constexpr double kHotSpot = 1.5;      // busiest node / mean node bytes that make a hot spot
}  // namespace

Binding binding_resource(const Result& r) {
  Binding b;
  double most = 0;
  for (std::size_t i = 0; i < kTimeShares; ++i) {
    const TimeShare s = TimeShare(i);
    if (s != TimeShare::compute && r.breakdown[s] > most) {
      most = r.breakdown[s];
      b.share = s;
    }
  }
  const double iteration = r.iteration_s > 0 ? r.iteration_s : 1;
  if (most < kNegligible * iteration) {
    b.share = TimeShare::compute;
    b.resource = "GPU compute";
    b.fraction = r.breakdown[TimeShare::compute] / iteration;
    return b;
  }
  b.fraction = most / iteration;
  switch (b.share) {
    case TimeShare::network:
      b.resource = r.received_bytes_max > r.sent_bytes_max ? "NIC rx" : "NIC tx";
      // Per-node bytes are measured by the SimGrid engine (it has link statistics); the
      // analytic engine's busiest-node figure is a bound, not a node's total.
      if (!r.links.empty() && r.traffic_imbalance() > kHotSpot) {
        char text[64];
        std::snprintf(text, sizeof text, " (hot spot: busiest node %.1fx the mean)", r.traffic_imbalance());
        b.resource += text;
      }
      break;
    case TimeShare::pcie: b.resource = "PCIe"; break;
    case TimeShare::host_copy: b.resource = "host copy path (the stack's per-byte host work)"; break;
    case TimeShare::server_apply: b.resource = "server shard CPU (apply)"; break;
    case TimeShare::sf_rebuild: b.resource = "SF rebuild on the GPU"; break;
    case TimeShare::quantization: b.resource = "1-bit quantization on the GPU"; break;
    case TimeShare::barrier_wait: b.resource = "stragglers (barrier wait)"; break;
    case TimeShare::compute: b.resource = "GPU compute"; break;
  }
  return b;
}

}  // namespace possim
