#include "model/plan/network_scale.hpp"

#include <cmath>
#include <stdexcept>

namespace possim {

SyncPlan scale_network(const SyncPlan& plan, double k) {
  if (!(std::isfinite(k) && k >= 1)) throw std::invalid_argument("network scale must be finite and >= 1");
  SyncPlan s = plan;
  s.network_scale = plan.network_scale * k;
  // The NIC's rate and the host's ceiling follow network_scale (SyncPlan::nic_bytes_per_s()).
  for (Task& t : s.tasks) {
    if (!info(t.resource).network_scaled) continue;
    if (t.pattern == FlowPattern::to_shards || t.pattern == FlowPattern::from_shards)
      t.scale /= k;  // flow bytes = slice bytes x scale; the slice itself is also applied
    else
      t.bytes /= k;  // to_peers, collective
  }
  return s;
}

}  // namespace possim
