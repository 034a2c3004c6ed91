#include "live/launch_mpi.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <stdexcept>

#include "live/coordinate.hpp"
#include "live/emulated.hpp"
#include "live/node.hpp"
#include "model/input/error.hpp"
#include "model/run/plan_json.hpp"
#include "model/run/child_processes.hpp"
#include "net/wire.hpp"

namespace possim::live {

namespace {

NodeOptions node_options(const LaunchOptions& opt) {
  NodeOptions no;
  no.connect_timeout_s = opt.connect_timeout_s;
  no.arithmetic = opt.arithmetic;
  no.kernels = opt.kernels;
  return no;
}

// Rank 0's listener for one gathering: ranks 1..want are let in; a rank above them (one a
// plan of fewer nodes does not need) is told to sit it out, and asks again for the next.
void gather(net::Fd& listener, const MpiRank& m, const LaunchOptions& opt, int want,
            const std::function<void(int rank, net::Fd&)>& let_in) {
  std::vector<char> joined(std::size_t(m.size), 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(opt.connect_timeout_s);
  for (int n = 0; n < want;) {
    pollfd p{listener.get(), POLLIN, 0};
    const int left_ms = int(std::chrono::duration_cast<std::chrono::milliseconds>(
                                deadline - std::chrono::steady_clock::now()).count());
    if (left_ms <= 0 || ::poll(&p, 1, left_ms) <= 0)
      throw std::runtime_error("only " + std::to_string(n) + " of " + std::to_string(want) +
                               " ranks reached the coordinator at " + m.host + ":" + std::to_string(m.port) +
                               " within " + std::to_string(int(opt.connect_timeout_s)) + " s");
    net::Fd c = net::accept_tcp(listener.get());
    net::set_timeouts(c.get(), opt.connect_timeout_s);
    const nlohmann::json hello = net::recv_json(c.get());
    const int r = hello.value("rank", -1);
    if (hello.value("type", "") != "rank" || r < 1 || r >= m.size || joined[std::size_t(r)])
      throw std::runtime_error("a connection to the coordinator gave a bad or repeated rank (" + std::to_string(r) + ")");
    if (r > want) {
      net::send_json(c.get(), {{"type", "sit_out"}});
      continue;
    }
    joined[std::size_t(r)] = 1;
    ++n;
    let_in(r, c);
  }
}

}  // namespace

void serve_rank(const LaunchOptions& opt, const MpiRank& m) {
  const NodeOptions no = node_options(opt);
  bool said = false;
  for (;;) {
    // Until rank 0 listens: it is building its next plan, or running one this rank sits out.
    net::Fd fd;
    nlohmann::json answer;
    for (;;) {
      try {
        fd = net::connect_tcp(m.host, std::uint16_t(m.port), 0.0);  // one try: the pace is this loop's
        net::set_timeouts(fd.get(), opt.connect_timeout_s);
        net::send_json(fd.get(), {{"type", "rank"}, {"rank", m.rank}});
        answer = net::recv_json(fd.get());
        const std::string type = answer.value("type", "");
        if (type == "welcome" || type == "done") break;
      } catch (const std::exception&) {  // nobody listening yet, or the connection dropped
      }
      if (!said && opt.progress) opt.progress("rank " + std::to_string(m.rank) + " waits for the coordinator at " +
                                              m.host + ":" + std::to_string(m.port));
      said = true;
      ::usleep(200000);
    }
    if (answer.value("type", "") == "done") return;
    net::set_timeouts(fd.get(), 0);
    // The plan rank 0 runs, as it sent it (model/run/plan_json.hpp checks it as any plan file).
    if (!answer.contains("plan"))
      throw std::runtime_error("the coordinator at " + m.host + ":" + std::to_string(m.port) + " sent no plan");
    const SyncPlan plan = plan_from_json(answer["plan"], "the plan from rank 0");
    if (m.rank >= plan.cluster.total_nodes())
      throw std::runtime_error("rank 0 let rank " + std::to_string(m.rank) + " into a plan of " +
                               std::to_string(plan.cluster.total_nodes()) + " nodes");
    if (run_node(plan, m.rank, fd.get(), net::local_address(fd.get()), no) != 0)
      throw std::runtime_error("live node " + std::to_string(m.rank) + " failed (the coordinator says why)");
  }
}

void end_ranks(const LaunchOptions& opt, const MpiRank& m) {
  if (m.size <= 1) return;
  std::uint16_t port = std::uint16_t(m.port);
  net::Fd listener = net::listen_tcp(m.host, port);
  gather(listener, m, opt, m.size - 1, [](int, net::Fd& c) { net::send_json(c.get(), {{"type", "done"}}); });
}

LiveRun run_rank(const SyncPlan& plan, const LaunchOptions& opt, const MpiRank& m) {
  const int n = plan.cluster.total_nodes();
  if (m.size < n)
    throw InputError("mpirun", "", std::to_string(m.size) + " ranks for a plan of " + std::to_string(n) + " nodes",
                     "at least one rank per node (mpirun -np " + std::to_string(n) + ")");
  if (m.rank != 0) throw std::logic_error("run_rank: only rank 0 runs plans; the others serve (serve_rank)");
  LiveRun run;
  const NodeOptions no = node_options(opt);
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
  if (n > 1)
    gather(listener, m, opt, n - 1, [&](int r, net::Fd& c) {
      net::send_json(c.get(), welcome);
      net::set_timeouts(c.get(), 0);
      ctrl[std::size_t(r)] = std::move(c);
    });
  listener.reset();  // the next plan's ranks meet a new listener
  std::vector<std::string> address(static_cast<std::size_t>(n));  // node 0: m.host; the rest say theirs
  address[0] = m.host;
  coordinate(plan, ctrl, kids, address, opt, run);
  kids.kill_all();
  run.wall_s = now_s() - t_begin;
  return run;
}

}  // namespace possim::live
