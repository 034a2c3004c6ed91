#include "live/launch_mpi.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "live/coordinate.hpp"
#include "live/emulated.hpp"
#include "live/node.hpp"
#include "model/input/error.hpp"
#include "model/run/plan_json.hpp"
#include "model/run/child_processes.hpp"
#include "net/wire.hpp"

namespace possim::live {

LiveRun run_rank(const SyncPlan& plan, const LaunchOptions& opt, const MpiRank& m, long seq) {
  const int n = plan.cluster.total_nodes();
  if (m.size < n)
    throw InputError("mpirun", "", std::to_string(m.size) + " ranks for a plan of " + std::to_string(n) + " nodes",
                     "at least one rank per node (mpirun -np " + std::to_string(n) + ")");
  LiveRun run;
  if (m.rank >= n) return run;  // not in this plan
  NodeOptions no;
  no.connect_timeout_s = opt.connect_timeout_s;
  no.arithmetic = opt.arithmetic;
  no.kernels = opt.kernels;
  if (m.rank > 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.connect_timeout_s);
    net::Fd fd;
    nlohmann::json welcome;
    for (;;) {
      const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0)
        throw std::runtime_error("rank " + std::to_string(m.rank) + " was not let in by the coordinator at " +
                                 m.host + ":" + std::to_string(m.port) + " within " +
                                 std::to_string(int(opt.connect_timeout_s)) + " s");
      fd = net::connect_tcp(m.host, std::uint16_t(m.port), left);
      try {
        net::set_timeouts(fd.get(), left);
        net::send_json(fd.get(), {{"type", "rank"}, {"rank", m.rank}, {"seq", seq}});
        welcome = net::recv_json(fd.get());
        if (welcome.value("type", "") == "welcome") break;
      } catch (const std::exception&) {  // turned away: the coordinator is on another plan
      }
      ::usleep(50000);
    }
    net::set_timeouts(fd.get(), 0);
    // The plan rank 0 runs, as it sent it: every node executes one plan, whatever this
    // rank would have built (model/run/plan_json.hpp checks it as any plan file).
    if (!welcome.contains("plan"))
      throw std::runtime_error("the coordinator at " + m.host + ":" + std::to_string(m.port) + " sent no plan");
    const SyncPlan sent = plan_from_json(welcome["plan"], "the plan from rank 0");
    if (sent.cluster.total_nodes() != n)
      throw std::runtime_error("rank 0's plan has " + std::to_string(sent.cluster.total_nodes()) + " nodes, this rank's " +
                               std::to_string(n) + ": the ranks do not run the same scenario");
    if (run_node(sent, m.rank, fd.get(), net::local_address(fd.get()), no) != 0)
      throw std::runtime_error("live node " + std::to_string(m.rank) + " failed (the coordinator says why)");
    return run;
  }
  // Rank 0: listen, run node 0 in a child, and take every other rank's connection.
  const double t_begin = now_s();
  std::uint16_t port = std::uint16_t(m.port);
  net::Fd listener;
  if (n > 1) listener = net::listen_tcp(m.host, port);
  std::vector<net::Fd> ctrl(static_cast<std::size_t>(n));
  Children kids;
  const nlohmann::json welcome = {{"type", "welcome"}, {"plan", plan_to_json(plan)}};
  ctrl[0] = spawn_node(plan, 0, m.host, no, [&] {
    if (listener) ::close(listener.get());
  }, kids);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.connect_timeout_s);
  for (int joined = 1; joined < n;) {
    pollfd p{listener.get(), POLLIN, 0};
    const int left_ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                                deadline - std::chrono::steady_clock::now()).count());
    if (left_ms <= 0 || ::poll(&p, 1, left_ms) <= 0)
      throw std::runtime_error("only " + std::to_string(joined) + " of " + std::to_string(n) +
                               " ranks reached the coordinator at " + m.host + ":" + std::to_string(m.port) +
                               " within " + std::to_string(int(opt.connect_timeout_s)) + " s");
    net::Fd c = net::accept_tcp(listener.get());
    net::set_timeouts(c.get(), opt.connect_timeout_s);
    const nlohmann::json hello = net::recv_json(c.get());
    net::set_timeouts(c.get(), 0);
    const int r = hello.value("rank", -1);
    if (hello.value("seq", -1L) != seq) continue;  // a rank still on an earlier plan: closed, it retries
    if (hello.value("type", "") != "rank" || r < 1 || r >= n || ctrl[std::size_t(r)])
      throw std::runtime_error("a connection to the coordinator gave a bad or repeated rank (" + std::to_string(r) + ")");
    net::send_json(c.get(), welcome);
    ctrl[std::size_t(r)] = std::move(c);
    ++joined;
  }
  listener.reset();  // the next plan's ranks meet a new listener
  std::vector<std::string> address(static_cast<std::size_t>(n));  // node 0: m.host; the rest say theirs
  address[0] = m.host;
  coordinate(plan, ctrl, kids, address, opt, run);
  kids.kill_all();
  run.wall_s = now_s() - t_begin;
  return run;
}

}  // namespace possim::live
