#include "model/plan/time_dilation.hpp"

#include <cmath>
#include <stdexcept>

namespace possim {

SyncPlan dilate_time(const SyncPlan& plan, double k) {
  if (!(std::isfinite(k) && k >= 1)) throw std::invalid_argument("time dilation must be finite and >= 1");
  SyncPlan d = plan;
  d.cluster.nic_gbps /= k;
  d.cluster.latency_s *= k;
  Rates& r = d.rates;
  r.nic_bytes_per_s /= k;
  r.latency_s *= k;
  r.pcie_bytes_per_s /= k;
  r.pcie_latency_s *= k;
  r.d2d_bytes_per_s /= k;
  r.server_apply_bytes_per_s /= k;
  // r.per_message_s: the CPU's real work on a message (above); copy_host_share is a share.
  d.per_iteration_s *= k;
  for (Task& t : d.tasks) t.duration_s *= k;  // GPU kernels; a server apply's fixed part
  return d;
}

}  // namespace possim
