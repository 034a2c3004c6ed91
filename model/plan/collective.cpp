#include "model/plan/collective.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace possim {

namespace {

// Ring all-reduce: reduce-scatter then all-gather, each P-1 steps of bytes/P to the next
// worker, every step waiting for the previous one's chunk from the worker before.
CollectiveSchedule ring(int p, int w, double bytes) {
  CollectiveSchedule s(1);
  if (p < 2) return s;
  for (int step = 0; step < 2 * (p - 1); ++step)
    s[0].push_back(CollectiveRound{{CollectiveSend{(w + 1) % p, bytes / p, 0}}, {CollectiveReceive{(w + p - 1) % p, 0}}});
  return s;
}

// One binary tree in heap order over positions 0..p-1; `rank` maps a position to a worker.
struct Tree {
  int p;
  bool mirrored;  // the second tree: position p-1-w, so the first tree's leaves are its inner nodes
  int pos(int w) const { return mirrored ? p - 1 - w : w; }
  int rank(int pos) const { return mirrored ? p - 1 - pos : pos; }
  int parent(int w) const { return pos(w) == 0 ? -1 : rank((pos(w) - 1) / 2); }
  std::vector<int> children(int w) const {
    std::vector<int> c;
    for (int q : {2 * pos(w) + 1, 2 * pos(w) + 2})
      if (q < p) c.push_back(rank(q));
    return c;
  }
};

// Tree `tree` (0 or 1) as NCCL runs it: chunks flow up (reduced at each node) and down
// (broadcast) at once, pipelined: in round c a node takes chunk c from one side and
// passes chunk c-1 on. The root turns each reduced chunk around; any other node forwards
// up and down concurrently, one channel each. Streams: 2 tree + 0 up, 2 tree + 1 down.
void tree_channels(const Tree& tree, int id, int w, double bytes, int chunks, CollectiveSchedule& s) {
  const int parent = tree.parent(w);
  const std::vector<int> children = tree.children(w);
  if (parent < 0 && children.empty()) return;
  const double chunk = bytes / chunks;
  const int up = 2 * id, down = 2 * id + 1;
  const auto from = [](const std::vector<int>& peers, int stream) {
    std::vector<CollectiveReceive> r;
    for (int p : peers) r.push_back(CollectiveReceive{p, stream});
    return r;
  };
  const auto to = [&](const std::vector<int>& peers, int stream) {
    std::vector<CollectiveSend> r;
    for (int p : peers) r.push_back(CollectiveSend{p, chunk, stream});
    return r;
  };
  const auto channel = [&](const std::vector<CollectiveReceive>& in, const std::vector<CollectiveSend>& out) {
    std::vector<CollectiveRound> rounds;
    for (int c = 0; c <= chunks; ++c) {
      CollectiveRound r;
      if (c < chunks) r.receives = in;
      if (c >= 1) r.sends = out;
      if (!r.sends.empty() || !r.receives.empty()) rounds.push_back(std::move(r));
    }
    if (!rounds.empty()) s.push_back(std::move(rounds));
  };
  if (parent < 0) {  // the root: reduced chunks go straight back down
    channel(from(children, up), to(children, down));
    return;
  }
  channel(from(children, up), to({parent}, up));
  channel(from({parent}, down), to(children, down));
}

// Double binary tree (NCCL's across nodes): two trees, each carrying half of the vector,
// arranged so that a worker that is a leaf in one is an inner node in the other; the
// latency grows with log P instead of P.
CollectiveSchedule double_tree(int p, int w, double bytes, int chunks) {
  CollectiveSchedule s;
  if (p < 2) return s;
  for (int id : {0, 1}) tree_channels(Tree{p, id == 1}, id, w, bytes / 2, std::max(1, chunks), s);
  return s;
}

}  // namespace

CollectiveSchedule collective_schedule(CollectiveKind kind, int workers, int w, double bytes, int chunks) {
  switch (kind) {
    case CollectiveKind::ring: return ring(workers, w, bytes);
    case CollectiveKind::double_tree: return double_tree(workers, w, bytes, chunks);
  }
  return {};
}

namespace {

// A point on a path: latencies and message costs in series, compared by their time.
struct PathCost {
  int latencies = 0, messages = 0;
  double bytes = 0;  // each hop's bytes, as if it had its link to itself
};

struct PathRates {
  double latency_s, per_message_s, bytes_per_s;
  double time(const PathCost& c) const {
    return c.latencies * latency_s + c.messages * per_message_s + (bytes_per_s > 0 ? c.bytes / bytes_per_s : 0);
  }
};

// Critical path of the rounds of every worker (schedules[w][channel][round]): a round
// starts when its channel's previous one ends, its sends leave after their message costs
// and land a latency later; it ends when they have landed and its receives have arrived.
PathCost critical_path(const std::vector<CollectiveSchedule>& schedules, const PathRates& rates) {
  const auto later = [&](const PathCost& a, const PathCost& b) { return rates.time(a) >= rates.time(b) ? a : b; };
  std::map<std::tuple<int, int, int>, std::vector<PathCost>> landed;  // (stream, src, dst) -> k-th send
  std::map<std::tuple<int, int, int>, std::size_t> taken;
  std::vector<std::vector<std::size_t>> next(schedules.size());
  std::vector<std::vector<PathCost>> clock(schedules.size());
  for (std::size_t w = 0; w < schedules.size(); ++w) {
    next[w].assign(schedules[w].size(), 0);
    clock[w].assign(schedules[w].size(), PathCost{});
  }
  PathCost end;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t w = 0; w < schedules.size(); ++w)
      for (std::size_t c = 0; c < schedules[w].size(); ++c)
        for (; next[w][c] < schedules[w][c].size(); ++next[w][c]) {
          const CollectiveRound& r = schedules[w][c][next[w][c]];
          bool ready = true;
          for (const CollectiveReceive& x : r.receives) {
            const auto key = std::make_tuple(x.stream, x.peer, int(w));
            std::size_t need = taken[key] + 1;
            for (const CollectiveReceive& y : r.receives)  // several from one peer in a round
              if (&y < &x && y.stream == x.stream && y.peer == x.peer) ++need;
            ready = ready && landed[key].size() >= need;
          }
          if (!ready) break;
          PathCost t = clock[w][c];
          const int sends = int(r.sends.size());
          PathCost sent = t;
          for (const CollectiveSend& x : r.sends) {
            const PathCost out{t.latencies + 1, t.messages + sends, t.bytes + x.bytes};
            landed[{x.stream, int(w), x.peer}].push_back(out);
            sent = later(sent, out);
          }
          t = sent;
          for (const CollectiveReceive& x : r.receives) {
            const auto key = std::make_tuple(x.stream, x.peer, int(w));
            t = later(t, landed[key][taken[key]++]);
          }
          clock[w][c] = t;
          end = later(end, t);
          progress = true;
        }
  }
  return end;
}

}  // namespace

CollectiveLoad collective_load(CollectiveKind kind, int workers, double bytes, int chunks, double latency_s,
                               double per_message_s, double bytes_per_s) {
  CollectiveLoad load;
  std::vector<double> tx(std::size_t(std::max(0, workers)), 0.0), rx = tx;
  // A ring is the same on every worker, shifted, and runs in lockstep: one schedule tells
  // all (and keeps a 1,000-worker ring from expanding a million rounds).
  const bool symmetric = kind == CollectiveKind::ring;
  const int distinct = symmetric ? std::min(workers, 1) : workers;
  std::vector<CollectiveSchedule> schedules;
  for (int w = 0; w < distinct; ++w) {
    schedules.push_back(collective_schedule(kind, workers, w, bytes, chunks));
    double messages = 0;
    for (const auto& channel : schedules.back()) {
      load.rounds_max = std::max(load.rounds_max, int(channel.size()));
      for (const CollectiveRound& r : channel)
        for (const CollectiveSend& s : r.sends) {
          tx[std::size_t(w)] += s.bytes;
          rx[std::size_t(s.peer)] += s.bytes;
          messages += 1;
        }
    }
    load.messages_max = std::max(load.messages_max, messages);
  }
  if (symmetric) {  // what worker 0 sends, each worker sends and receives, round by round
    load.tx_bytes_max = load.rx_bytes_max = tx.empty() ? 0 : tx[0];
    load.total_bytes = load.tx_bytes_max * workers;
    load.path_latencies = load.rounds_max;
    load.path_messages = int(load.messages_max);
    load.path_bytes = load.tx_bytes_max;  // lockstep: worker 0's rounds are the path
    return load;
  }
  for (int w = 0; w < workers; ++w) {
    load.tx_bytes_max = std::max(load.tx_bytes_max, tx[std::size_t(w)]);
    load.rx_bytes_max = std::max(load.rx_bytes_max, rx[std::size_t(w)]);
    load.total_bytes += tx[std::size_t(w)];
  }
  const PathCost path = critical_path(schedules, PathRates{latency_s, per_message_s, bytes_per_s});
  load.path_latencies = path.latencies;
  load.path_messages = path.messages;
  load.path_bytes = path.bytes;
  return load;
}

}  // namespace possim
