#include "model/plan/task_cost.hpp"

namespace possim {

double resource_seconds(const Rates& r, const Task& t) {
  switch (t.resource) {
    case Resource::gpu: return t.duration_s;
    case Resource::pcie_d2h:
    case Resource::pcie_h2d: return t.bytes > 0 ? r.pcie_latency_s + t.bytes / r.pcie_bytes_per_s : 0;
    case Resource::intra_node: return t.bytes / r.d2d_bytes_per_s;
    case Resource::none: return t.duration_s;  // a barrier's fixed round, after every worker
    case Resource::network:
    case Resource::server_cpu: return 0;
  }
  return 0;
}

}  // namespace possim
