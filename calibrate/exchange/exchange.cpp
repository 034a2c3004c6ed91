#include "calibrate/exchange/exchange.hpp"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <thread>
#include <tuple>

#include "net/netns.hpp"
#include "calibrate/exchange/node.hpp"
#include "net/wire.hpp"
#include "kernels/timing.hpp"
#include "model/input/error.hpp"
#include "model/run/child_processes.hpp"

namespace possim::calibrate::exchange {
using namespace possim::net;  // the transport (net/)

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string fmt(double x, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

// Every node of a local exchange is a process (with --netns, a namespace too): more than
// this is a fork bomb, not a measurement. Across real nodes (--coordinator), the cap is
// a scenario's node limit.
constexpr int kMaxLocalNodes = 256, kMaxRankNodes = 65536;

void check_options(const ExchangeOptions& opt, bool local) {
  const int most = local ? kMaxLocalNodes : kMaxRankNodes;
  const std::string nodes_e = "an integer in [1, " + std::to_string(most) + "]" +
                              (local ? " for a local exchange" : "");
  if (opt.workers < 1 || opt.workers > most)
    throw InputError("--workers", "", std::to_string(opt.workers) + " is not a worker count", nodes_e);
  if (opt.shards < 1 || opt.shards > most)
    throw InputError("--shards", "", std::to_string(opt.shards) + " is not a shard count", nodes_e);
  if (opt.nodes() < 2)
    throw InputError("--workers", "", "one node has no network path to measure",
                     "--workers 2 or more, or --dedicated-servers");
  if (opt.repeats < 1 || opt.repeats > 1000)
    throw InputError("--repeats", "", std::to_string(opt.repeats) + " is out of range", "an integer in [1, 1000]");
  if (opt.burst_count < 2 || opt.burst_count > 100000)
    throw InputError("--burst", "", std::to_string(opt.burst_count) + " is out of range",
                     "an integer in [2, 100000]");
  if (!(opt.timeout_s > 0 && opt.timeout_s <= 86400))
    throw InputError("--timeout", "", "is out of range", "seconds in (0, 86400]");
  if (opt.netns && (opt.mtu < 576 || opt.mtu > 65535))
    throw InputError("--mtu", "", std::to_string(opt.mtu) + " is out of range", "bytes in [576, 65535]");
  if (!(opt.line_rate_gbit >= 0 && opt.line_rate_gbit <= 1000))
    throw InputError("--line-gbit", "", "is out of range", "Gbit/s in [0, 1000] (0: unknown)");
  std::vector<double> all = opt.kv_sizes_bytes;
  all.insert(all.end(), opt.sf_sizes_bytes.begin(), opt.sf_sizes_bytes.end());
  for (double b : all)
    if (!(b >= 1 && b <= 1e9))
      throw InputError("--sizes", "", "message size " + fmt(b) + " out of range", "1 byte .. 1 GB");
  if (opt.netns && !(opt.rate_gbit > 0 && opt.rate_gbit <= 1000))
    throw InputError("--rate-gbit", "", "must be positive and finite", "Gbit/s in (0, 1000]");
}

// Drive the nodes behind `controls` (index = node id) through one exchange.
json coordinate(std::vector<Fd>& controls, const ExchangeOptions& opt, json& roster,
                std::vector<json>& stats, int& mss) {
  const int n = int(controls.size());
  for (auto& c : controls) set_timeouts(c.get(), opt.timeout_s);
  roster = json::array();
  for (int i = 0; i < n; ++i) {
    const json hello = recv_json(controls[std::size_t(i)].get());
    if (hello.value("type", "") != "hello")
      throw std::runtime_error("node " + std::to_string(i) + " did not say hello");
    roster.push_back({{"id", i}, {"address", hello["address"]}, {"port", hello["port"]}});
  }
  std::vector<int> shard_node, workers;
  for (int s = 0; s < opt.shards; ++s) shard_node.push_back(opt.shard_node(s));
  for (int w = 0; w < opt.workers; ++w) workers.push_back(w);
  const json plan = {{"kv_sizes", opt.kv_sizes_bytes}, {"sf_sizes", opt.sf_sizes_bytes},
                     {"repeats", opt.repeats},         {"warmup", opt.warmup},
                     {"burst_count", opt.burst_count}, {"burst_bytes", opt.burst_bytes}};
  for (int i = 0; i < n; ++i) {
    json hosted = json::array();
    for (int s = 0; s < opt.shards; ++s)
      if (shard_node[std::size_t(s)] == i) hosted.push_back(s);
    send_json(controls[std::size_t(i)].get(), {{"type", "setup"},
                                               {"id", i},
                                               {"worker", i < opt.workers},
                                               {"hosted_shards", hosted},
                                               {"roster", roster},
                                               {"shard_node", shard_node},
                                               {"workers", workers},
                                               {"plan", plan}});
  }
  for (int i = 0; i < n; ++i) {
    const json ready = recv_json(controls[std::size_t(i)].get());
    if (ready.value("type", "") != "ready")
      throw std::runtime_error("node " + std::to_string(i) + " is not ready");
  }
  json samples = json::array();
  for (int w : workers) {  // one worker at a time: each path is measured without contention
    send_json(controls[std::size_t(w)].get(), {{"type", "run"}});
    const json reply = recv_json(controls[std::size_t(w)].get());
    if (reply.value("type", "") != "samples")
      throw std::runtime_error("worker " + std::to_string(w) + " sent no samples");
    for (const json& s : reply["samples"]) samples.push_back(s);
    if (reply.contains("mss_bytes")) {
      const int m = reply["mss_bytes"];
      mss = mss == 0 ? m : std::min(mss, m);
    }
    if (opt.progress)
      opt.progress("worker " + std::to_string(w) + ": " + std::to_string(reply["samples"].size()) +
                   " messages timed");
  }
  for (int i = 0; i < n; ++i) send_json(controls[std::size_t(i)].get(), {{"type", "quit"}});
  for (int i = 0; i < n; ++i) {
    const json st = recv_json(controls[std::size_t(i)].get());
    if (st.value("type", "") != "stats")
      throw std::runtime_error("node " + std::to_string(i) + " sent no stats");
    stats.push_back(st);
  }
  return samples;
}

// Wait for children until the deadline, then kill what is left. Returns the first failure.
std::string reap(std::vector<pid_t>& pids, double timeout_s) {
  std::string failure;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  for (std::size_t i = 0; i < pids.size(); ++i) {
    if (pids[i] <= 0) continue;
    int status = 0;
    for (;;) {
      const pid_t r = ::waitpid(pids[i], &status, WNOHANG);
      if (r == pids[i]) break;
      if (r < 0) {
        status = 0;
        break;
      }
      if (Clock::now() > deadline) {
        ::kill(pids[i], SIGKILL);
        ::waitpid(pids[i], &status, 0);
        if (failure.empty()) failure = "node " + std::to_string(i) + " did not exit in time";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (failure.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
      failure = "node " + std::to_string(i) + " failed (status " + std::to_string(status) + ")";
    child_processes::forget(pids[i]);
    pids[i] = -1;
  }
  return failure;
}

void kill_all(std::vector<pid_t>& pids) {
  for (pid_t p : pids)
    if (p > 0) ::kill(p, SIGKILL);
  for (pid_t& p : pids)
    if (p > 0) {
      int st = 0;
      ::waitpid(p, &st, 0);
      child_processes::forget(p);
      p = -1;
    }
}

// Fork a node process; `setup` runs in the child before the node (e.g. entering a namespace).
pid_t spawn_node(std::vector<Fd>& controls, const std::string& address, double timeout_s,
                 const std::function<void()>& setup) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    throw std::runtime_error("socketpair failed");
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid;
  try {
    pid = child_processes::spawn();  // tracked: an interrupt, or possim's death, ends it too
  } catch (...) {
    ::close(sv[0]);
    ::close(sv[1]);
    throw;
  }
  if (pid == 0) {
    int rc = 1;
    try {
      ::close(sv[0]);
      for (auto& c : controls)
        ::close(c.get());  // other nodes' channels (not released: no destructors run)
      if (setup) setup();
      rc = run_node(sv[1], address, timeout_s);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "possim exchange node: %s\n", e.what());
      rc = 3;
    } catch (...) {
      rc = 3;
    }
    std::fflush(stderr);
    ::_exit(rc);
  }
  ::close(sv[1]);
  controls.emplace_back(sv[0]);
  return pid;
}

ExchangeResult finish(const ExchangeOptions& opt, const std::string& mode, json samples,
                      json roster, const std::vector<json>& stats, Clock::time_point t0,
                      json topology, int mss) {
  ExchangeResult r;
  r.mode = mode;
  r.mss_bytes = mss;
  r.mtu = opt.netns ? opt.mtu : 0;
  r.samples = std::move(samples);
  topology["roster"] = std::move(roster);
  r.topology = std::move(topology);
  r.line_rate_bytes_per_s = (opt.netns ? opt.rate_gbit : opt.line_rate_gbit) * 1e9 / 8;
  fit_samples(r, json(stats));
  if (r.mss_bytes > 0 && r.mtu > 0)
    r.wire_bytes_per_s = r.network_bytes_per_s * (r.mtu + 14.0) / r.mss_bytes;
  r.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

}  // namespace

void fit_samples(ExchangeResult& r, const json& node_stats) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_path;
  std::vector<double> ax, ay;
  // Bursts and single pings per (src, dst), in the order they were sent.
  std::map<std::pair<int, int>, std::vector<const json*>> pings, bursts;
  // Interference (another process on the core, a late wake-up) only ever adds time to a
  // message, so the fastest of a message's repeats (same path, endpoints and size) is the
  // estimate of its undisturbed time; the lines are fitted on those.
  std::map<std::tuple<std::string, int, int, double>, double> fastest;
  for (const json& s : r.samples) {
    const std::string path = s["path"];
    const double b = s["bytes"], t = s["seconds"];
    if (path == "push" || path == "pull" || path == "sf") {
      const auto key = std::make_tuple(path, s["src"].get<int>(), s["dst"].get<int>(), b);
      const auto it = fastest.find(key);
      if (it == fastest.end() || t < it->second) fastest[key] = t;
    } else if (path == "ping") {
      pings[{s["src"].get<int>(), s["dst"].get<int>()}].push_back(&s);
    } else if (path == "burst") {
      bursts[{s["src"].get<int>(), s["dst"].get<int>()}].push_back(&s);
    }
  }
  for (const auto& [key, t] : fastest) {
    const auto& [path, src, dst, b] = key;
    by_path[path].first.push_back(b);
    by_path[path].second.push_back(t);
    ax.push_back(b);
    ay.push_back(t);
  }
  // Per path: a trimmed line. All paths: one bandwidth, each path its own fixed cost,
  // over the points the per-path fits kept.
  r.paths.clear();
  std::vector<std::vector<double>> kx, ky;
  int dropped = 0;
  for (auto& [path, xy] : by_path) {
    if (xy.first.size() < 2) continue;
    std::vector<bool> kept;
    r.paths.push_back({path, fit_line_trimmed(xy.first, xy.second, 4.0, 3, &kept)});
    dropped += r.paths.back().fit.dropped;
    kx.emplace_back();
    ky.emplace_back();
    for (std::size_t i = 0; i < kept.size(); ++i)
      if (kept[i]) kx.back().push_back(xy.first[i]), ky.back().push_back(xy.second[i]);
  }
  if (ax.size() < 2) throw std::runtime_error("exchange: too few network messages to fit");
  r.network = fit_common_slope(kx, ky);
  r.network.dropped = dropped;
  r.paths.push_back({"all", r.network});
  r.network_bytes_per_s = r.network.rate();
  if (!(r.network_bytes_per_s > 0))
    throw std::runtime_error(
        "exchange: the fitted bandwidth is not positive (message times do not grow with size: use "
        "larger --kv-sizes/--sf-sizes or more --repeats)");
  if (r.line_rate_bytes_per_s > 0) r.tcp_goodput = r.network_bytes_per_s / r.line_rate_bytes_per_s;

  // Per message: (burst of n - one message) / (n - 1), less the wire time of one message.
  std::vector<double> per;
  for (auto& [key, bs] : bursts) {
    const auto& ps = pings[key];
    for (std::size_t i = 0; i < bs.size() && i < ps.size(); ++i) {
      const double n = (*bs[i])["count"], bytes = (*bs[i])["bytes"];
      const double marginal =
          ((*bs[i])["seconds"].get<double>() - (*ps[i])["seconds"].get<double>()) / (n - 1);
      per.push_back(marginal - (bytes + 16) / r.network_bytes_per_s);
    }
  }
  if (!per.empty()) {
    double mean = 0;
    for (double v : per) mean += v;
    mean /= double(per.size());
    double var = 0;
    for (double v : per) var += (v - mean) * (v - mean);
    r.per_message_s = std::max(0.0, median(per));
    r.per_message_se_s =
        per.size() > 1 ? std::sqrt(var / double(per.size() - 1) / double(per.size())) : 0;
  }
  double ab = 0, as = 0;
  for (const json& st : node_stats) {
    ab += st.value("apply_bytes", 0.0);
    as += st.value("apply_s", 0.0);
  }
  r.server_apply_bytes_per_s = as > 0 ? ab / as : 0;
}

ExchangeResult run_local_exchange(const ExchangeOptions& opt) {
  check_options(opt, true);
  const auto t0 = Clock::now();
  std::unique_ptr<NetnsCluster> cluster;
  json topology = {{"nodes", opt.nodes()},
                   {"workers", opt.workers},
                   {"shards", opt.shards},
                   {"dedicated_servers", opt.dedicated_servers}};
  if (opt.netns) {
    NetnsOptions no;
    no.nodes = opt.nodes();
    no.rate_gbit = opt.rate_gbit;
    no.mtu = opt.mtu;
    cluster = std::make_unique<NetnsCluster>(no);
    topology["namespaces"] = json::array();
    for (int i = 0; i < opt.nodes(); ++i)
      topology["namespaces"].push_back(cluster->node_namespace(i));
    topology["commands"] = cluster->commands();
    topology["tbf"] = {
        {"rate_gbit", opt.rate_gbit},
        {"burst_bytes", cluster->burst_bytes()},
        {"mtu", opt.mtu},
        {"where", "each node's veth egress and the switch port's egress toward the node"}};
    if (opt.progress)
      opt.progress("built " + std::to_string(opt.nodes()) + " namespaces, links shaped to " +
                   fmt(opt.rate_gbit) + " Gbit/s (tbf, burst " + fmt(cluster->burst_bytes()) +
                   " B, MTU " + std::to_string(opt.mtu) + ")");
  }
  std::vector<Fd> controls;
  std::vector<pid_t> pids;
  json samples, roster;
  std::vector<json> stats;
  int mss = 0;
  try {
    for (int i = 0; i < opt.nodes(); ++i) {
      const std::string addr = cluster ? cluster->node_address(i) : "127.0.0.1";
      const NetnsCluster* c = cluster.get();
      pids.push_back(spawn_node(controls, addr, opt.timeout_s, [c, i] {
        if (c) c->enter(i);
      }));
    }
    samples = coordinate(controls, opt, roster, stats, mss);
  } catch (...) {
    controls.clear();
    kill_all(pids);
    throw;  // the cluster's destructor deletes the namespaces
  }
  controls.clear();
  const std::string failure = reap(pids, opt.timeout_s);
  if (!failure.empty()) throw std::runtime_error("exchange: " + failure);
  return finish(opt, opt.netns ? "netns" : "loopback", std::move(samples), std::move(roster), stats,
                t0, topology, mss);
}

ExchangeResult run_rank_exchange(const ExchangeOptions& opt, const std::string& host, int port,
                                 int rank, int size) {
  check_options(opt, false);
  if (size != opt.nodes())
    throw InputError(
        "mpirun -np", "",
        std::to_string(size) + " ranks for " + std::to_string(opt.nodes()) + " nodes",
        "one rank per node: workers" + std::string(opt.dedicated_servers ? " + shards" : ""));
  if (rank < 0 || rank >= size)
    throw InputError("--rank", "", "rank " + std::to_string(rank) + " out of range", "0 .. size-1");
  if (port < 1 || port > 65535)
    throw InputError("--coordinator", "", "port out of range", "HOST:PORT");
  const auto t0 = Clock::now();
  if (rank != 0) {
    Fd fd = connect_tcp(host, std::uint16_t(port), opt.timeout_s);
    send_json(fd.get(), {{"type", "rank"}, {"rank", rank}});
    const int rc = run_node(fd.get(), local_address(fd.get()), opt.timeout_s);
    if (rc != 0)
      throw std::runtime_error("exchange node (rank " + std::to_string(rank) + ") failed");
    ExchangeResult r;
    r.mode = "mpi-rank";
    return r;
  }
  std::uint16_t p = std::uint16_t(port);
  Fd listener = listen_tcp("0.0.0.0", p);
  std::vector<Fd> controls;
  std::vector<pid_t> pids;
  json samples, roster;
  std::vector<json> stats;
  int mss = 0;
  try {
    pids.push_back(spawn_node(controls, host, opt.timeout_s, {}));  // rank 0's own node
    std::vector<Fd> others(std::size_t(size - 1));
    for (int k = 1; k < size; ++k) {
      Fd c = accept_tcp(listener.get());
      set_timeouts(c.get(), opt.timeout_s);
      const json hello = recv_json(c.get());
      const int r = hello.value("rank", -1);
      if (r < 1 || r >= size || others[std::size_t(r - 1)])
        throw std::runtime_error("bad or repeated rank " + std::to_string(r) +
                                 " at the coordinator");
      others[std::size_t(r - 1)] = std::move(c);
    }
    for (auto& c : others) controls.push_back(std::move(c));
    samples = coordinate(controls, opt, roster, stats, mss);
  } catch (...) {
    controls.clear();
    kill_all(pids);
    throw;
  }
  controls.clear();
  const std::string failure = reap(pids, opt.timeout_s);
  if (!failure.empty()) throw std::runtime_error("exchange: " + failure);
  json topology = {{"nodes", opt.nodes()},
                   {"workers", opt.workers},
                   {"shards", opt.shards},
                   {"dedicated_servers", opt.dedicated_servers},
                   {"coordinator", host + ":" + std::to_string(port)}};
  return finish(opt, "mpi", std::move(samples), std::move(roster), stats, t0, topology, mss);
}

Profile exchange_profile(const Profile& base, const ExchangeResult& r, const std::string& name) {
  Profile p = base;
  p.name = name;
  const std::string how = "possim calibrate exchange (" + r.mode + ", " +
                          std::to_string(r.samples.size()) +
                          " timed messages; fits in the calibration sidecar)";
  if (r.tcp_goodput > 0) {
    const std::string measured = "fitted bandwidth " + fmt(r.network_bytes_per_s) + " +/- " +
                                 fmt(r.network.rate_se()) +
                                 " B/s (seconds = latency + bytes / bandwidth over push, pull and SF "
                                 "messages) / line rate " +
                                 fmt(r.line_rate_bytes_per_s) + " B/s = " + fmt(r.tcp_goodput);
    if (r.mss_bytes > 0) {
      // The transport model (model/plan/transport.hpp): the wire's framing share from the
      // segment size, and the host's ceiling where the payload fell short of it.
      const bool shaped = r.mode == "netns";
      const int mtu = r.mtu > 0 ? r.mtu : r.mss_bytes + 52;  // IPv4 20 + TCP 20 + timestamps 12
      const double frame = mtu + (shaped ? 14.0 : 38.0);
      p.tcp_goodput = std::min(1.0, r.mss_bytes / frame);
      p.sources["tcp_goodput"] =
          "TCP's framing share: " + std::to_string(r.mss_bytes) + " payload bytes per segment (measured MSS) in " +
          fmt(frame) + " bytes " +
          (shaped ? "that tc counts (MTU + 14-byte Ethernet header)"
                  : "on the wire (MTU + Ethernet header, FCS, preamble and inter-frame gap)") +
          " = " + fmt(p.tcp_goodput) + "; " + how;
      const bool fell_short = r.tcp_goodput < 0.95 * p.tcp_goodput;
      p.tcp_host_bytes_per_s = fell_short ? r.network_bytes_per_s : 0;
      p.sources["tcp_host_bytes_per_s"] =
          fell_short ? "the host's TCP ceiling: the payload fell short of the framing's share of the line (" +
                           measured + " < 0.95 x " + fmt(p.tcp_goodput) + "), so the host carried " +
                           fmt(r.network_bytes_per_s) + " B/s; " + how
                     : "none: the hosts carried the line's framing share (" + measured + ", at least 0.95 x " +
                           fmt(p.tcp_goodput) + "), so their ceiling is above this line rate; " + how;
    } else {
      p.tcp_goodput = std::min(1.0, r.tcp_goodput);
      p.tcp_host_bytes_per_s = 0;
      p.sources["tcp_goodput"] = measured + (r.tcp_goodput > 1 ? " (clamped to 1)" : "") +
                                 ", as one flat share (no segment size seen); " + how;
      p.sources.erase("tcp_host_bytes_per_s");
    }
  }
  p.per_message_s = r.per_message_s;
  p.sources["per_message_s"] =
      "marginal cost of one small message in a burst (burst of n minus one acked message, "
      "/ (n - 1), less its wire time): " +
      fmt(r.per_message_s) + " +/- " + fmt(r.per_message_se_s) + " s; " + how;
  return p;
}

json exchange_sidecar(const ExchangeResult& r, const ExchangeOptions& opt, const Profile& base) {
  json paths = json::array();
  for (const auto& pf : r.paths) {
    json j = to_json(pf.fit);
    j["path"] = pf.path;
    paths.push_back(j);
  }
  return {{"kind", "exchange"},
          {"mode", r.mode},
          {"base_profile", {{"name", base.name}, {"path", base.path}}},
          {"options",
           {{"workers", opt.workers},
            {"shards", opt.shards},
            {"dedicated_servers", opt.dedicated_servers},
            {"kv_sizes_bytes", opt.kv_sizes_bytes},
            {"sf_sizes_bytes", opt.sf_sizes_bytes},
            {"repeats", opt.repeats},
            {"warmup", opt.warmup},
            {"burst_count", opt.burst_count},
            {"burst_bytes", opt.burst_bytes}}},
          {"topology", r.topology},
          {"model",
           "seconds = intercept + bytes / bytes_per_s per path; each message timed from its first "
           "byte sent to its ack (push, sf) or its last byte received (pull). The intercept is "
           "latency plus per-message costs; under tc tbf it can be negative, since each message's "
           "first `burst` bytes leave at the veth's own speed. Shards ack a push on receipt and "
           "apply it on their update thread (server_apply_bytes_per_s)."},
          {"latency_note",
           "the profile has no latency field (latency_s is the scenario's): the intercepts are "
           "here for that"},
          {"fits", paths},
          {"network_bytes_per_s", r.network_bytes_per_s},
          {"line_rate_bytes_per_s", r.line_rate_bytes_per_s},
          {"tcp_goodput", r.tcp_goodput},
          {"mss_bytes", r.mss_bytes},
          {"mtu", r.mtu},
          {"wire_bytes_per_s", r.wire_bytes_per_s},
          {"per_message_s", r.per_message_s},
          {"per_message_se_s", r.per_message_se_s},
          {"server_apply_bytes_per_s", r.server_apply_bytes_per_s},
          {"samples", r.samples},
          {"wall_s", r.wall_s}};
}

}  // namespace possim::calibrate::exchange
