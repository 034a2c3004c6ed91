#include "live/coordinate.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "live/emulated.hpp"
#include "model/run/child_processes.hpp"

namespace possim::live {

using nlohmann::json;

std::string role(const SyncPlan& plan, int node) {
  return node < plan.workers ? "worker " + std::to_string(node) : "server node " + std::to_string(node);
}

namespace {

std::string describe_status(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return std::string("was killed by signal ") + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  return "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace

void Children::kill_all() {
  for (std::size_t i = 0; i < pid.size(); ++i)
    if (pid[i] > 0 && status[i] < 0) ::kill(pid[i], SIGKILL);
  for (std::size_t i = 0; i < pid.size(); ++i)
    if (pid[i] > 0 && status[i] < 0) status[i] = child_processes::wait(pid[i]);
}

int Children::poll_exited() {
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

net::Fd spawn_node(const SyncPlan& plan, int node, const std::string& address, const NodeOptions& no,
                   const std::function<void()>& in_child, Children& kids) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) throw std::runtime_error("socketpair failed");
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = child_processes::spawn();
  if (pid == 0) {
    int rc = 1;
    try {
      ::close(sv[0]);
      if (in_child) in_child();
      rc = run_node(plan, node, sv[1], address, no);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "possim live node %d: %s\n", node, e.what());
    }
    std::fflush(stderr);
    ::_exit(rc);  // no destructors: they belong to the parent's objects
  }
  ::close(sv[1]);
  kids.add(pid);
  return net::Fd(sv[0]);
}

void coordinate(const SyncPlan& plan, std::vector<net::Fd>& ctrl, Children& kids,
                std::vector<std::string> address, const LaunchOptions& opt, LiveRun& run) {
  const int n = int(ctrl.size());
  // Messages from every node, as they come; a failure is reported with what all nodes
  // said in the next moment (the first to notice is often a peer of the one that died).
  std::vector<int> at_iteration(std::size_t(n), 0);
  // When each node's report of each iteration arrived (coordinator clock).
  std::vector<std::vector<double>> reported(static_cast<std::size_t>(n));
  const auto completed = [&] {
    std::vector<double> ends;
    for (std::size_t t = 0;; ++t) {
      double end = 0;
      for (const auto& r : reported) {
        if (t >= r.size() || r[t] < 0) return ends;
        end = std::max(end, r[t] - run.go_s);
      }
      ends.push_back(end);
    }
  };
  std::vector<json> inbox(static_cast<std::size_t>(n));
  std::vector<char> open(std::size_t(n), 1);
  const auto failure = [&](const std::string& what) {
    // A moment for the rest to exit or say why, then the one that died names the failure.
    const double until = now_s() + 0.3;
    while (now_s() < until) {
      kids.poll_exited();
      ::usleep(20000);
    }
    std::string msg;
    for (int i = 0; i < n; ++i)
      if (i < int(kids.pid.size()) && kids.status[std::size_t(i)] >= 0 && WIFSIGNALED(kids.status[std::size_t(i)])) {
        msg = role(plan, i) + " (node " + std::to_string(i) + ", pid " + std::to_string(kids.pid[std::size_t(i)]) +
              ") " + describe_status(kids.status[std::size_t(i)]) + " in iteration " +
              std::to_string(at_iteration[std::size_t(i)]);
        break;
      }
    if (msg.empty()) msg = what;
    kids.kill_all();
    throw LiveFailure("live run failed: " + msg, run.go_s > 0 ? completed() : std::vector<double>{});
  };
  // Reads and handles one message of node i: progress, an error, or one for next().
  const auto take = [&](int i, double& quiet_since) {
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
    if (type == "counters") open[std::size_t(i)] = 0;  // its last word: it exits now
    if (type == "iteration") {
      const int t = j.value("t", 0);
      at_iteration[std::size_t(i)] = std::max(at_iteration[std::size_t(i)], t + 1);
      auto& r = reported[std::size_t(i)];
      if (t >= 0 && t < plan.iterations) {
        if (r.size() <= std::size_t(t)) r.resize(std::size_t(t) + 1, -1.0);
        r[std::size_t(t)] = now_s();
      }
      if (opt.progress && i == 0)
        opt.progress("iteration " + std::to_string(at_iteration[0]) + " of " + std::to_string(plan.iterations));
    } else if (type == "error") {
      failure(role(plan, i) + " (node " + std::to_string(i) + ") in iteration " +
              std::to_string(at_iteration[std::size_t(i)]) + ": " + j.value("message", "?"));
    } else {
      inbox[std::size_t(i)] = std::move(j);
    }
  };
  // One message from node i: waits until it comes, following every node meanwhile.
  const auto next = [&](int want, const char* type, double timeout_s) -> json {
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
        for (int i = 0; i < n; ++i)
          if (fds[std::size_t(i)].revents & (POLLIN | POLLHUP | POLLERR)) take(i, quiet_since);
      if (dead >= 0 && dead < n) {
        // Its last word may have come just before it exited (a node exits once it has sent
        // its counters): read what its connection still holds before judging.
        const std::size_t d = std::size_t(dead);
        while (open[d] && inbox[d].is_null()) {
          pollfd p{ctrl[d].get(), POLLIN, 0};
          if (::poll(&p, 1, 0) <= 0) break;
          take(dead, quiet_since);
        }
        if (open[d] && inbox[d].is_null())
          failure(role(plan, dead) + " (node " + std::to_string(dead) + ") " + describe_status(kids.status[d]) +
                  " in iteration " + std::to_string(at_iteration[d]));
      }
      if (now_s() - quiet_since > timeout_s)
        failure(run.go_s > 0 ? "no node made progress for " + std::to_string(int(timeout_s)) + " s (" + role(plan, want) +
                                   " is in iteration " + std::to_string(at_iteration[std::size_t(want)]) + ")"
                             : role(plan, want) + " (node " + std::to_string(want) + ") was not ready within " +
                                   std::to_string(int(timeout_s)) + " s of its start (preparing its kernels, connecting)");
    }
  };

  json addresses = json::array(), ports = json::array();
  for (int i = 0; i < n; ++i) {
    const json hello = next(i, "hello", opt.prepare_timeout_s);
    addresses.push_back(address[std::size_t(i)].empty() ? hello.at("address").get<std::string>()
                                                        : address[std::size_t(i)]);
    ports.push_back(hello.at("port"));
  }
  for (int i = 0; i < n; ++i)
    net::send_json(ctrl[std::size_t(i)].get(), {{"type", "roster"}, {"addresses", addresses}, {"ports", ports}});
  for (int i = 0; i < n; ++i) next(i, "ready", opt.prepare_timeout_s);
  if (opt.progress) opt.progress(std::to_string(n) + " node processes connected");
  run.go_s = now_s();
  for (int i = 0; i < n; ++i) net::send_json(ctrl[std::size_t(i)].get(), {{"type", "go"}});
  for (int i = 0; i < n; ++i) run.reports.push_back(next(i, "finished", opt.stall_timeout_s));
  for (int i = 0; i < n; ++i) net::send_json(ctrl[std::size_t(i)].get(), {{"type", "quit"}});
  for (int i = 0; i < n; ++i) run.counters.push_back(next(i, "counters", opt.stall_timeout_s));
  // Each exits once told; a node that does not within the stall timeout is killed.
  const double deadline = now_s() + opt.stall_timeout_s;
  for (;;) {
    kids.poll_exited();
    bool all = true;
    for (int s : kids.status) all = all && s >= 0;
    if (all || now_s() > deadline) break;
    ::usleep(5000);
  }
}

}  // namespace possim::live
