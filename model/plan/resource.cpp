#include "model/plan/resource.hpp"

#include <stdexcept>

#include "model/plan/sync_plan.hpp"

namespace possim {

namespace {

// In enum order (resources() checks it once).
const std::array<ResourceInfo, kResources> kTable = {{
    //  id                    name          amount           rate                               latency                   track       scope           carries scaled dilated
    {Resource::gpu,        "gpu",        Amount::seconds, nullptr,                           nullptr,                  "GPU",      Scope::worker,  false, false, true},
    {Resource::pcie_d2h,   "pcie_d2h",   Amount::bytes,   &Rates::pcie_bytes_per_s,          &Rates::pcie_latency_s,   "PCIe d2h", Scope::worker,  true,  false, true},
    {Resource::pcie_h2d,   "pcie_h2d",   Amount::bytes,   &Rates::pcie_bytes_per_s,          &Rates::pcie_latency_s,   "PCIe h2d", Scope::worker,  true,  false, true},
    {Resource::intra_node, "intra_node", Amount::bytes,   &Rates::d2d_bytes_per_s,           nullptr,                  "GPU-GPU",  Scope::worker,  true,  false, true},
    {Resource::network,    "network",    Amount::flows,   nullptr,                           &Rates::latency_s,        "net",      Scope::worker,  true,  true,  true},
    {Resource::server_cpu, "server_cpu", Amount::updates, &Rates::server_apply_bytes_per_s,  nullptr,                  "CPU",      Scope::shard,   false, false, true},
    {Resource::none,       "none",       Amount::seconds, nullptr,                           nullptr,                  "step sync", Scope::cluster, false, false, true},
}};

bool in_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i)
    if (std::size_t(kTable[i].id) != i) return false;
  return true;
}

}  // namespace

const std::array<ResourceInfo, kResources>& resources() {
  static const bool ordered = in_order();
  if (!ordered) throw std::logic_error("model/plan/resource.cpp: the resource table is not in enum order");
  return kTable;
}

const ResourceInfo& info(Resource r) { return resources().at(std::size_t(r)); }

const char* to_string(Resource r) { return std::size_t(r) < kResources ? kTable[std::size_t(r)].name : "?"; }

}  // namespace possim
