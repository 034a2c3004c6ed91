#include "model/plan/collective.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

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
// The k-th receive on a link (stream, src, dst) takes the k-th send on it. Links get dense
// ids first, so that the walk indexes vectors (a 1,024-worker tree walks ~10^5 rounds).
PathCost critical_path(const std::vector<CollectiveSchedule>& schedules, const PathRates& rates) {
  const auto later = [&](const PathCost& a, const PathCost& b) { return rates.time(a) >= rates.time(b) ? a : b; };
  const std::size_t workers = schedules.size();
  std::unordered_map<std::uint64_t, std::uint32_t> id_of;
  const auto link = [&](int stream, int src, int dst) {
    const std::uint64_t key = (std::uint64_t(stream) * workers + std::uint64_t(src)) * workers + std::uint64_t(dst);
    return id_of.try_emplace(key, std::uint32_t(id_of.size())).first->second;
  };
  // Per worker and channel: the links of its rounds' receives and sends, in round order.
  std::vector<std::vector<std::vector<std::uint32_t>>> in(workers), out(workers);
  std::vector<std::vector<std::size_t>> next(workers), in_at(workers), out_at(workers);
  std::vector<std::vector<PathCost>> clock(workers);
  for (std::size_t w = 0; w < workers; ++w) {
    const std::size_t channels = schedules[w].size();
    in[w].resize(channels);
    out[w].resize(channels);
    for (std::size_t c = 0; c < channels; ++c)
      for (const CollectiveRound& r : schedules[w][c]) {
        for (const CollectiveReceive& x : r.receives) in[w][c].push_back(link(x.stream, x.peer, int(w)));
        for (const CollectiveSend& x : r.sends) out[w][c].push_back(link(x.stream, int(w), x.peer));
      }
    next[w].assign(channels, 0);
    in_at[w].assign(channels, 0);
    out_at[w].assign(channels, 0);
    clock[w].assign(channels, PathCost{});
  }
  std::vector<std::vector<PathCost>> landed(id_of.size());  // per link: its k-th send's arrival
  std::vector<std::size_t> taken(id_of.size(), 0);          // per link: sends received so far
  PathCost end;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t w = 0; w < workers; ++w)
      for (std::size_t c = 0; c < schedules[w].size(); ++c)
        for (; next[w][c] < schedules[w][c].size(); ++next[w][c]) {
          const CollectiveRound& r = schedules[w][c][next[w][c]];
          const std::uint32_t* from = in[w][c].data() + in_at[w][c];
          const std::uint32_t* to = out[w][c].data() + out_at[w][c];
          const std::size_t receives = r.receives.size(), sends = r.sends.size();
          bool ready = true;
          for (std::size_t i = 0; i < receives && ready; ++i) {
            std::size_t need = taken[from[i]] + 1;
            for (std::size_t j = 0; j < i; ++j)  // several from one peer in a round
              if (from[j] == from[i]) ++need;
            ready = landed[from[i]].size() >= need;
          }
          if (!ready) break;
          PathCost t = clock[w][c];
          PathCost sent = t;
          for (std::size_t i = 0; i < sends; ++i) {
            const PathCost arrival{t.latencies + 1, t.messages + int(sends), t.bytes + r.sends[i].bytes};
            landed[to[i]].push_back(arrival);
            sent = later(sent, arrival);
          }
          t = sent;
          for (std::size_t i = 0; i < receives; ++i) t = later(t, landed[from[i]][taken[from[i]]++]);
          in_at[w][c] += receives;
          out_at[w][c] += sends;
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
