#include "net/netns.hpp"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace possim::net {

namespace {

std::atomic<int> g_sequence{0};
constexpr const char* kPrefix = "psm";

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& a : v) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string rate_arg(double gbit) {
  char b[64];
  std::snprintf(b, sizeof b, "%.0fbit", gbit * 1e9);
  return b;
}

}  // namespace

int run_command(const std::vector<std::string>& argv, std::string& output) {
  int pipefd[2];
  if (::pipe(pipefd) < 0) throw NetnsError(std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  output.clear();
  if (rc != 0) {
    ::close(pipefd[0]);
    output = std::string("cannot run ") + argv[0] + ": " + std::strerror(rc);
    return 127;
  }
  char buf[4096];
  for (;;) {
    const ssize_t k = ::read(pipefd[0], buf, sizeof buf);
    if (k > 0)
      output.append(buf, std::size_t(k));
    else if (k == 0 || errno != EINTR)
      break;
  }
  ::close(pipefd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  return WIFEXITED(status) ? WEXITSTATUS(status)
                           : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void NetnsCluster::run(const std::vector<std::string>& argv) {
  log_.push_back(join(argv));
  std::string out;
  const int rc = run_command(argv, out);
  if (rc != 0)
    throw NetnsError("'" + join(argv) + "' failed (exit " + std::to_string(rc) + "): " + out);
}

NetnsCluster::NetnsCluster(const NetnsOptions& opt) : opt_(opt) {
  if (opt_.nodes < 2 || opt_.nodes > 200) throw NetnsError("namespace cluster needs 2..200 nodes");
  if (!(opt_.rate_gbit > 0)) throw NetnsError("namespace cluster needs a rate > 0");
  const double rate_bytes = opt_.rate_gbit * 1e9 / 8;
  burst_ = opt_.burst_bytes > 0 ? opt_.burst_bytes : std::max(16.0 * 1024, rate_bytes * 4e-3);
  cleanup_stale();
  const std::string base =
      std::string(kPrefix) + std::to_string(::getpid()) + "-" + std::to_string(g_sequence++);
  switch_ns_ = base + "-sw";
  try {
    run({"ip", "netns", "add", switch_ns_});
    created_.push_back(switch_ns_);
    run({"ip", "-n", switch_ns_, "link", "add", "br0", "type", "bridge"});
    run({"ip", "-n", switch_ns_, "link", "set", "br0", "up"});
    const std::string burst = std::to_string(long(std::lround(burst_)));
    const std::string latency = std::to_string(long(std::lround(opt_.queue_latency_ms * 1000))) + "us";
    const std::string mtu = std::to_string(opt_.mtu);
    for (int i = 0; i < opt_.nodes; ++i) {
      const std::string ns = base + "-n" + std::to_string(i);
      const std::string port = "n" + std::to_string(i);
      run({"ip", "netns", "add", ns});
      created_.push_back(ns);
      node_ns_.push_back(ns);
      run({"ip", "link", "add", "eth0", "netns", ns, "mtu", mtu, "type", "veth", "peer", "name",
           port, "netns", switch_ns_, "mtu", mtu});
      run({"ip", "-n", switch_ns_, "link", "set", port, "master", "br0"});
      run({"ip", "-n", switch_ns_, "link", "set", port, "up"});
      run({"ip", "-n", ns, "link", "set", "lo", "up"});
      run({"ip", "-n", ns, "addr", "add", node_address(i) + "/24", "dev", "eth0"});
      run({"ip", "-n", ns, "link", "set", "eth0", "up"});
      // The node's NIC, both directions: its egress, and the switch port toward it.
      run({"tc", "-n", ns, "qdisc", "add", "dev", "eth0", "root", "tbf", "rate",
           rate_arg(opt_.rate_gbit), "burst", burst, "latency", latency});
      run({"tc", "-n", switch_ns_, "qdisc", "add", "dev", port, "root", "tbf", "rate",
           rate_arg(opt_.rate_gbit), "burst", burst, "latency", latency});
    }
  } catch (const NetnsError& e) {
    teardown();
    throw NetnsError(std::string("cannot build the namespace cluster (needs root and iproute2): ") +
                     e.what());
  }
}

NetnsCluster::~NetnsCluster() { teardown(); }

void NetnsCluster::teardown() noexcept {
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    std::string out;
    try {
      run_command({"ip", "netns", "del", *it}, out);
    } catch (...) {
    }
  }
  created_.clear();
}

std::string NetnsCluster::node_address(int i) const {
  return "10.213." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
}

std::pair<double, double> NetnsCluster::link_bytes(int i) const {
  std::string out;
  if (run_command({"ip", "-n", node_namespace(i), "-j", "-s", "link", "show", "dev", "eth0"}, out) != 0)
    throw NetnsError("cannot read the counters of node " + std::to_string(i) + "'s link: " + out);
  try {
    const nlohmann::json j = nlohmann::json::parse(out).at(0).at("stats64");
    return {j.at("tx").at("bytes").get<double>(), j.at("rx").at("bytes").get<double>()};
  } catch (const std::exception& e) {
    throw NetnsError("cannot read the counters of node " + std::to_string(i) + "'s link: " + e.what());
  }
}

void NetnsCluster::enter(int i) const {
  const std::string path = "/var/run/netns/" + node_namespace(i);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw NetnsError("open " + path + ": " + std::strerror(errno));
  const int rc = ::setns(fd, CLONE_NEWNET);
  const int err = errno;
  ::close(fd);
  if (rc < 0) throw NetnsError("setns " + path + ": " + std::strerror(err));
}

int NetnsCluster::cleanup_own() {
  int removed = 0;
  const std::string mine = std::string(kPrefix) + std::to_string(::getpid()) + "-";
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator("/var/run/netns", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(mine, 0) == 0) names.push_back(name);
  }
  for (const std::string& name : names) {
    std::string out;
    if (run_command({"ip", "netns", "del", name}, out) == 0) ++removed;
  }
  return removed;
}

int NetnsCluster::cleanup_stale() {
  int removed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/var/run/netns", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    const std::string rest = name.substr(std::strlen(kPrefix));
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    const std::string pid_text = rest.substr(0, dash);
    if (pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos) continue;
    const long pid = std::stol(pid_text);
    if (pid == long(::getpid())) continue;
    if (::kill(pid_t(pid), 0) == 0 || errno == EPERM) continue;  // still alive
    std::string out;
    if (run_command({"ip", "netns", "del", name}, out) == 0) ++removed;
  }
  return removed;
}

}  // namespace possim::net
