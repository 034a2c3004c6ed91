#include "live/launch_local.hpp"

#include <unistd.h>

#include <memory>

#include "live/coordinate.hpp"
#include "live/emulated.hpp"
#include "model/run/child_processes.hpp"
#include "net/netns.hpp"

namespace possim::live {

namespace {

// Deletes the namespaces if an interrupt ends the process before the cluster's destructor.
struct StopHook {
  int handle;
  StopHook() : handle(child_processes::on_stop([] { net::NetnsCluster::cleanup_own(); })) {}
  ~StopHook() { child_processes::forget_on_stop(handle); }
};

}  // namespace

LiveRun run_local(const SyncPlan& plan, const LaunchOptions& opt) {
  const int n = plan.cluster.total_nodes();
  LiveRun run;
  StopHook hook;
  std::unique_ptr<net::NetnsCluster> cluster;
  std::vector<std::string> address(std::size_t(n), "127.0.0.1");
  if (opt.netns && n >= 2) {
    net::NetnsOptions no;
    no.nodes = n;
    // The NIC's line rate at the plan's scale: its goodput-corrected rate is TCP's to find.
    no.rate_gbit = plan.line_rate_gbps();
    no.mtu = opt.mtu;
    no.queue_latency_ms = opt.queue_ms;
    no.burst_bytes = opt.burst_bytes;
    cluster = std::make_unique<net::NetnsCluster>(no);
    for (int i = 0; i < n; ++i) address[std::size_t(i)] = cluster->node_address(i);
    run.tc_commands = cluster->commands();
    run.link_rate_gbit = no.rate_gbit;
  }
  const double t_begin = now_s();
  Children kids;
  std::vector<net::Fd> ctrl;
  NodeOptions no;
  no.connect_timeout_s = opt.connect_timeout_s;
  no.arithmetic = opt.arithmetic;
  no.kernels = opt.kernels;
  no.kernels.spread_over_devices = true;
  for (int i = 0; i < n; ++i)
    ctrl.push_back(spawn_node(plan, i, address[std::size_t(i)], no, [&] {
      for (auto& c : ctrl) ::close(c.get());  // the other nodes' channels
      if (cluster) cluster->enter(i);
    }, kids));
  std::vector<std::pair<double, double>> before;
  if (cluster)
    for (int i = 0; i < n; ++i) before.push_back(cluster->link_bytes(i));
  coordinate(plan, ctrl, kids, address, opt, run);
  if (cluster)
    for (int i = 0; i < n; ++i) {
      const auto after = cluster->link_bytes(i);
      run.wire_bytes.emplace_back(after.first - before[std::size_t(i)].first, after.second - before[std::size_t(i)].second);
    }
  kids.kill_all();
  run.wall_s = now_s() - t_begin;
  return run;
}

}  // namespace possim::live
