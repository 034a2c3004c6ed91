#include "sim/platform.hpp"

#include <cstdlib>
#include <string>

namespace sg4 = simgrid::s4u;

namespace possim::sim {

void configure_engine() {
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  // Full re-solves of the sharing system measured 3-22% faster than Lazy here (many
  // flows start and end together); the numbers are identical.
  sg4::Engine::set_config("network/optim:Full");
  // Experiments only: one extra SimGrid setting, e.g. POSSIM_SIMGRID_CFG=network/optim:Lazy.
  if (const char* extra = std::getenv("POSSIM_SIMGRID_CFG")) sg4::Engine::set_config(extra);
}

namespace {

sg4::SplitDuplexLink* attach(sg4::NetZone* zone, sg4::Host* host, const std::string& name,
                             double bytes_per_s, double latency_s) {
  sg4::SplitDuplexLink* link = zone->create_split_duplex_link(name, bytes_per_s);
  link->set_latency(latency_s)->seal();
  zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                  {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, true);
  return link;
}

// Power state 0 at full speed; 1, where there is a slowdown, under interference.
std::vector<double> speeds(double speed, double slowdown) {
  if (slowdown == 1) return {speed};
  return {speed, speed / slowdown};
}

}  // namespace

Platform build_platform(const SyncPlan& plan, double server_nic_share) {
  Platform p;
  auto* zone = sg4::create_star_zone("switch");
  const Rates& r = plan.rates;
  const int nodes = plan.cluster.total_nodes();
  const std::vector<double> gpu_speeds = speeds(kGpuFlopsPerSecond, r.interference_kernel_slowdown);
  for (int n = 0; n < nodes; ++n) {
    const std::string id = std::to_string(n);
    sg4::Host* node = zone->create_host("node-" + id, r.server_apply_bytes_per_s)->seal();
    p.node.push_back(node);
    const double share = n >= plan.cluster.nodes ? server_nic_share : 1.0;  // dedicated server nodes
    p.nic.push_back(attach(zone, node, "nic-" + id, plan.nic_bytes_per_s() * share, r.latency_s / 2));
    sg4::Host* ctl = zone->create_host("ctl-" + id, 1.0)->seal();
    p.ctl.push_back(ctl);
    zone->add_route(ctl->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(p.nic.back(), sg4::LinkInRoute::Direction::UP)}, true);
  }
  for (int w = 0; w < plan.workers; ++w) {
    const std::string id = std::to_string(w);
    sg4::Host* gpu = zone->create_host("gpu-" + id, gpu_speeds)->seal();
    sg4::Host* mem = zone->create_host("mem-" + id, 1.0)->seal();
    p.gpu.push_back(gpu);
    p.mem.push_back(mem);
    p.pcie.push_back(attach(zone, gpu, "pcie-" + id, r.pcie_bytes_per_s, r.pcie_latency_s));
    p.membus.push_back(attach(zone, mem, "membus-" + id, 1e15, 0.0));  // host memory: never the bottleneck
    p.d2d.push_back(zone->create_host("d2d-" + id, speeds(r.d2d_bytes_per_s > 0 ? r.d2d_bytes_per_s : 1e15,
                                                          r.interference_comm_slowdown))
                        ->seal());
    p.follower.emplace_back();
    for (int g = 1; g < plan.cluster.gpus_per_node; ++g)
      p.follower.back().push_back(zone->create_host("gpu-" + id + "." + std::to_string(g), gpu_speeds)->seal());
  }
  zone->seal();
  return p;
}

}  // namespace possim::sim
