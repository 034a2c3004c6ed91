#include "live/launch_local.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "live/emulated.hpp"
#include "live/node.hpp"
#include "model/run/child_processes.hpp"
#include "net/netns.hpp"
#include "net/wire.hpp"

namespace possim::live {

namespace {

using nlohmann::json;

std::string role(const SyncPlan& plan, int node) {
  return node < plan.workers ? "worker " + std::to_string(node) : "server node " + std::to_string(node);
}

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return std::string("was killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// The children of one run, killed and reaped on every path out.
struct Children {
  std::vector<pid_t> pid;
  std::vector<int> status;  // -1: still running
  ~Children() { kill_all(); }
  void kill_all() {
    for (std::size_t i = 0; i < pid.size(); ++i)
      if (pid[i] > 0 && status[i] < 0) ::kill(pid[i], SIGKILL);
    for (std::size_t i = 0; i < pid.size(); ++i)
      if (pid[i] > 0 && status[i] < 0) {
        int st = 0;
        while (::waitpid(pid[i], &st, 0) < 0 && errno == EINTR) {
        }
        status[i] = st;
        child_processes::forget(pid[i]);
      }
  }
  // Reaps what has exited; returns the index of one that did, or -1.
  int poll_exited() {
    int any = -1;
    for (std::size_t i = 0; i < pid.size(); ++i) {
      if (pid[i] <= 0 || status[i] >= 0) continue;
      int st = 0;
      if (::waitpid(pid[i], &st, WNOHANG) == pid[i]) {
        status[i] = st;
        child_processes::forget(pid[i]);
        any = int(i);
      }
    }
    return any;
  }
};

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
    no.rate_gbit = plan.cluster.nic_gbps / plan.network_scale;
    no.mtu = opt.mtu;
    no.queue_latency_ms = opt.queue_ms;
    cluster = std::make_unique<net::NetnsCluster>(no);
    for (int i = 0; i < n; ++i) address[std::size_t(i)] = cluster->node_address(i);
    run.tc_commands = cluster->commands();
    run.link_rate_gbit = no.rate_gbit;
  }
  const double t_begin = now_s();
  Children kids;
  std::vector<net::Fd> ctrl;
  for (int i = 0; i < n; ++i) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) throw std::runtime_error("socketpair failed");
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = child_processes::spawn();
    if (pid == 0) {
      int rc = 1;
      try {
        ::close(sv[0]);
        for (auto& c : ctrl) ::close(c.get());
        if (cluster) cluster->enter(i);
        NodeOptions no;
        no.connect_timeout_s = opt.connect_timeout_s;
        rc = run_node(plan, i, sv[1], address[std::size_t(i)], no);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "possim live node %d: %s\n", i, e.what());
      }
      std::fflush(stderr);
      ::_exit(rc);
    }
    ::close(sv[1]);
    ctrl.emplace_back(sv[0]);
    kids.pid.push_back(pid);
    kids.status.push_back(-1);
  }

  // Messages from every node, as they come; a failure is reported with what all nodes
  // said in the next moment (the first to notice is often a peer of the one that died).
  std::vector<int> at_iteration(std::size_t(n), 0);
  std::vector<json> inbox(static_cast<std::size_t>(n));
  std::vector<char> open(std::size_t(n), 1);
  std::string first_error;
  const auto failure = [&](const std::string& what) {
    // A moment for the rest to exit or say why, then the one that died names the failure.
    const double until = now_s() + 0.3;
    while (now_s() < until) {
      kids.poll_exited();
      ::usleep(20000);
    }
    std::string msg;
    for (int i = 0; i < n; ++i)
      if (kids.status[std::size_t(i)] >= 0 && WIFSIGNALED(kids.status[std::size_t(i)])) {
        msg = role(plan, i) + " (node " + std::to_string(i) + ", pid " + std::to_string(kids.pid[std::size_t(i)]) +
              ") " + describe_status(kids.status[std::size_t(i)]) + " in iteration " +
              std::to_string(at_iteration[std::size_t(i)]);
        break;
      }
    if (msg.empty()) msg = what;
    kids.kill_all();
    throw std::runtime_error("live run failed: " + msg);
  };
  // One message from node i: waits until it comes, following every node meanwhile.
  const auto next = [&](int want, const char* type) -> json {
    double quiet_since = now_s();
    for (;;) {
      if (!inbox[std::size_t(want)].is_null()) {
        json j = std::move(inbox[std::size_t(want)]);
        inbox[std::size_t(want)] = nullptr;
        if (j.value("type", "") != type)
          failure(role(plan, want) + " said '" + j.value("type", "?") + "' where '" + type + "' was expected");
        return j;
      }
      std::vector<pollfd> fds;
      for (int i = 0; i < n; ++i) fds.push_back(pollfd{open[std::size_t(i)] ? ctrl[std::size_t(i)].get() : -1, POLLIN, 0});
      const int r = ::poll(fds.data(), fds.size(), 100);
      if (r < 0 && errno != EINTR) failure("poll failed");
      const int dead = kids.poll_exited();
      if (r > 0)
        for (int i = 0; i < n; ++i) {
          if (!(fds[std::size_t(i)].revents & (POLLIN | POLLHUP | POLLERR))) continue;
          json j;
          try {
            j = net::recv_json(ctrl[std::size_t(i)].get());
          } catch (const std::exception&) {
            open[std::size_t(i)] = 0;
            failure(role(plan, i) + " (node " + std::to_string(i) + ") closed its control connection in iteration " +
                    std::to_string(at_iteration[std::size_t(i)]));
          }
          quiet_since = now_s();
          const std::string type = j.value("type", "");
          if (type == "iteration") {
            at_iteration[std::size_t(i)] = j.value("t", 0) + 1;
            if (opt.progress && i == 0)
              opt.progress("iteration " + std::to_string(at_iteration[0]) + " of " + std::to_string(plan.iterations));
          } else if (type == "error") {
            failure(role(plan, i) + " (node " + std::to_string(i) + ") in iteration " +
                    std::to_string(at_iteration[std::size_t(i)]) + ": " + j.value("message", "?"));
          } else {
            inbox[std::size_t(i)] = std::move(j);
          }
        }
      if (dead >= 0 && inbox[std::size_t(dead)].is_null())
        failure(role(plan, dead) + " (node " + std::to_string(dead) + ") " +
                describe_status(kids.status[std::size_t(dead)]) + " in iteration " +
                std::to_string(at_iteration[std::size_t(dead)]));
      if (now_s() - quiet_since > opt.stall_timeout_s)
        failure("no node made progress for " + std::to_string(int(opt.stall_timeout_s)) + " s (" +
                role(plan, want) + " is in iteration " + std::to_string(at_iteration[std::size_t(want)]) + ")");
    }
  };

  json addresses = json::array(), ports = json::array();
  for (int i = 0; i < n; ++i) {
    const json hello = next(i, "hello");
    addresses.push_back(address[std::size_t(i)]);
    ports.push_back(hello.at("port"));
  }
  for (int i = 0; i < n; ++i)
    net::send_json(ctrl[std::size_t(i)].get(), {{"type", "roster"}, {"addresses", addresses}, {"ports", ports}});
  for (int i = 0; i < n; ++i) next(i, "ready");
  if (opt.progress) opt.progress(std::to_string(n) + " node processes connected");
  run.go_s = now_s();
  for (int i = 0; i < n; ++i) net::send_json(ctrl[std::size_t(i)].get(), {{"type", "go"}});
  for (int i = 0; i < n; ++i) run.reports.push_back(next(i, "finished"));
  for (int i = 0; i < n; ++i) net::send_json(ctrl[std::size_t(i)].get(), {{"type", "quit"}});
  // Each exits once told; a node that does not within the stall timeout is killed.
  const double deadline = now_s() + opt.stall_timeout_s;
  for (;;) {
    kids.poll_exited();
    bool all = true;
    for (int i = 0; i < n; ++i) all = all && kids.status[std::size_t(i)] >= 0;
    if (all || now_s() > deadline) break;
    ::usleep(5000);
  }
  kids.kill_all();
  run.wall_s = now_s() - t_begin;
  return run;
}

}  // namespace possim::live
