#include "model/plan/resource.hpp"

#include <initializer_list>
#include <stdexcept>

#include "model/plan/sync_plan.hpp"

namespace possim {

namespace {

using S = Step;
constexpr std::uint32_t steps(std::initializer_list<Step> list) {
  std::uint32_t bits = 0;
  for (Step x : list) bits |= step_bit(x);
  return bits;
}

// In enum order (checked at compile time below).
constexpr std::array<ResourceInfo, kResources> kTable = {{
    //  id                    name          amount           rate                               latency                   track       scope           carries scaled dilated  waited (a wait counts as)    host_work
    {Resource::gpu,        "gpu",        Amount::seconds, nullptr,                           nullptr,                  "GPU",      Scope::worker,  false, false, true,  TimeShare::barrier_wait, false,
     steps({S::forward, S::backward, S::rebuild, S::quantize, S::optimizer})},
    {Resource::pcie_d2h,   "pcie_d2h",   Amount::bytes,   &Rates::pcie_bytes_per_s,          &Rates::pcie_latency_s,   "PCIe d2h", Scope::worker,  true,  false, true,  TimeShare::pcie,         true,
     steps({S::copy_d2h})},
    {Resource::pcie_h2d,   "pcie_h2d",   Amount::bytes,   &Rates::pcie_bytes_per_s,          &Rates::pcie_latency_s,   "PCIe h2d", Scope::worker,  true,  false, true,  TimeShare::pcie,         true,
     steps({S::copy_h2d})},
    {Resource::intra_node, "intra_node", Amount::bytes,   &Rates::d2d_bytes_per_s,           nullptr,                  "GPU-GPU",  Scope::worker,  true,  false, true,  TimeShare::pcie,         false,
     steps({S::gather, S::scatter, S::reduce_scatter, S::all_gather})},
    {Resource::network,    "network",    Amount::flows,   nullptr,                           &Rates::latency_s,        "net",      Scope::worker,  true,  true,  true,  TimeShare::network,      false,
     steps({S::push, S::pull, S::broadcast, S::allreduce})},
    {Resource::server_cpu, "server_cpu", Amount::updates, &Rates::server_apply_bytes_per_s,  nullptr,                  "CPU",      Scope::shard,   false, false, true,  TimeShare::server_apply, false,
     steps({S::apply})},
    {Resource::none,       "none",       Amount::seconds, nullptr,                           nullptr,                  "step sync", Scope::cluster, false, false, true, TimeShare::barrier_wait, false,
     steps({S::factors_in, S::barrier})},
    // A worker's own update applied by its node's CPU, as ZeRO-Offload's CPU Adam: the same
    // kind of work, and rate, as a shard's apply (the node's CPU is the shard's when colocated).
    {Resource::host_cpu,   "host_cpu",   Amount::bytes,   &Rates::server_apply_bytes_per_s,  nullptr,                  "host CPU", Scope::worker,  false, false, true,  TimeShare::server_apply, false,
     steps({S::apply})},
}};

constexpr bool in_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i)
    if (std::size_t(kTable[i].id) != i) return false;
  return true;
}
static_assert(in_order(), "model/plan/resource.cpp: the resource table is not in enum order");

}  // namespace

const std::array<ResourceInfo, kResources>& resources() { return kTable; }

const ResourceInfo& info(Resource r) { return resources().at(std::size_t(r)); }

const char* to_string(Resource r) { return std::size_t(r) < kResources ? kTable[std::size_t(r)].name : "?"; }

bool runs_on(Resource r, Step s) { return (info(r).steps & step_bit(s)) != 0; }

Resource resource_of(Step s) {
  for (const ResourceInfo& r : resources())
    if (r.steps & step_bit(s)) return r.id;
  throw std::logic_error(std::string("model/plan/resource.cpp: no resource runs step ") + to_string(s));
}

}  // namespace possim
