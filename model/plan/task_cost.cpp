#include "model/plan/task_cost.hpp"

namespace possim {

double resource_seconds(const Rates& r, const Task& t) {
  const ResourceInfo& res = info(t.resource);
  switch (res.amount) {
    case Amount::seconds: return t.duration_s;  // GPU kernels; a barrier's fixed round, after every worker
    case Amount::bytes: {
      if (!(t.bytes > 0)) return 0;
      const double transfer = t.bytes / (r.*res.rate);
      return res.latency ? r.*res.latency + transfer : transfer;
    }
    case Amount::flows:
    case Amount::updates: return 0;
  }
  return 0;
}

}  // namespace possim
