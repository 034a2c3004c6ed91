// The live PS/SFB exchange: real processes, real TCP. Workers push KV-pair-sized messages
// to server shards and pull them back, broadcast SF-sized messages to peer workers, and
// send bursts of small messages; every message is timed. A line seconds = a + bytes / B
// is fitted per path (push, pull, sf) and pooled; bursts give the per-message cost; the
// shards time their parameter updates (server apply rate).
//
// Launch modes: local processes over loopback; local processes in network namespaces
// joined by tc-shaped veth links (NetnsCluster); or one process per rank of mpirun across
// real nodes, meeting at a coordinator address (rank 0).
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibrate/line_fit.hpp"
#include "model/input/profile.hpp"

namespace possim::calibrate::exchange {

struct ExchangeOptions {
  int workers = 2;
  int shards = 2;
  bool dedicated_servers = false;  // shards on their own nodes (else on the worker nodes)
  std::vector<double> kv_sizes_bytes = {256e3, 512e3, 1e6, 2e6,
                                        4e6};  // around Poseidon's 2 MB pairs
  std::vector<double> sf_sizes_bytes = {256e3, 1e6, 2e6, 4e6};
  int repeats = 3;
  int warmup = 1;
  int burst_count = 100;
  double burst_bytes = 64;  // small: the burst measures software cost, not wire time
  double timeout_s = 60;    // any single step; the whole run is bounded by a few of these

  // Namespace mode (local only): shape every node's link to rate_gbit with tc.
  bool netns = false;
  double rate_gbit = 1.0;
  int mtu = 1500;
  // The NIC line rate when it is known (netns: the shaped rate); 0: unknown, no goodput.
  double line_rate_gbit = 0;

  std::function<void(const std::string&)> progress;

  int nodes() const { return dedicated_servers ? workers + shards : std::max(workers, 1); }
  int shard_node(int s) const { return dedicated_servers ? workers + s : s % nodes(); }
};

struct PathFit {
  std::string path;  // push, pull, sf, or all (pooled)
  LineFit fit;
};

struct ExchangeResult {
  std::string mode;        // loopback, netns, mpi
  nlohmann::json samples;  // every timed message
  std::vector<PathFit> paths;
  LineFit network;  // pooled over push, pull and sf
  double network_bytes_per_s = 0;
  double per_message_s = 0;  // marginal cost of one small message in a burst, wire time removed
  double per_message_se_s = 0;
  double server_apply_bytes_per_s = 0;
  double line_rate_bytes_per_s = 0;  // 0: unknown
  double tcp_goodput = 0;            // network / line rate; 0 when the line rate is unknown
  int mss_bytes = 0;                 // TCP payload per segment (smallest seen; 0: unknown)
  int mtu = 0;                       // link MTU when known (netns), else 0
  // Bytes on the wire per second (payload x (MTU + 14-byte Ethernet header) / MSS): what
  // tc shapes; 0 unless MTU and MSS are known.
  double wire_bytes_per_s = 0;
  nlohmann::json topology;  // nodes, addresses, tc commands
  double wall_s = 0;
};

// Local processes (fork), over loopback or inside a NetnsCluster (opt.netns). Throws
// NetnsError when namespaces cannot be built, std::runtime_error on any other failure;
// children are killed and namespaces deleted on every path.
ExchangeResult run_local_exchange(const ExchangeOptions& opt);

// One rank of an mpirun launch: rank 0 coordinates (listening on coordinator_port) and
// also runs a node; the others connect to coordinator_host:port. Only rank 0 returns a
// result (others return an empty one with mode "mpi-rank").
ExchangeResult run_rank_exchange(const ExchangeOptions& opt, const std::string& coordinator_host,
                                 int coordinator_port, int rank, int size);

// Fit a result's samples (used by the run functions; exposed for tests).
void fit_samples(ExchangeResult& r, const nlohmann::json& node_stats);

// `base` with per_message_s and server_apply_bytes_per_s from the exchange and, when the
// line rate is known, its transport: tcp_goodput the framing share of the measured segment
// size, tcp_host_bytes_per_s the measured payload where it fell short of that (else none);
// sources say how.
Profile exchange_profile(const Profile& base, const ExchangeResult& r, const std::string& name);
nlohmann::json exchange_sidecar(const ExchangeResult& r, const ExchangeOptions& opt,
                                const Profile& base);

}  // namespace possim::calibrate::exchange
