#include "model/plan/time_dilation.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace possim {

SyncPlan dilate_time(const SyncPlan& plan, double k) {
  if (!(std::isfinite(k) && k >= 1)) throw std::invalid_argument("time dilation must be finite and >= 1");
  SyncPlan d = plan;
  d.cluster.nic_gbps /= k;  // the NIC's line rate, which SyncPlan::nic_bytes_per_s() follows
  d.rates.host_bytes_per_s /= k;  // and the host's TCP ceiling under it
  d.cluster.latency_s *= k;
  // Each resource's rate and latency, once per field (both PCIe directions share theirs).
  std::vector<double Rates::*> done;
  const auto once = [&](double Rates::*field, bool rate) {
    if (!field || std::find(done.begin(), done.end(), field) != done.end()) return;
    done.push_back(field);
    if (rate)
      d.rates.*field /= k;
    else
      d.rates.*field *= k;
  };
  for (const ResourceInfo& res : resources())
    if (res.dilated) {
      once(res.rate, true);
      once(res.latency, false);
    }
  // per_message_s: the CPU's real work on a message (above); copy_host_share is a share.
  d.per_iteration_s *= k;
  d.rates.collective_launch_s *= k;  // emulated by the live node, as a GPU's kernels
  for (Task& t : d.tasks)
    if (info(t.resource).dilated) t.duration_s *= k;  // GPU kernels; a server apply's fixed part; a barrier's round
  return d;
}

}  // namespace possim
