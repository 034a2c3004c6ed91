#include "model/collective.hpp"

#include <algorithm>

namespace possim {

namespace {

// Ring all-reduce: reduce-scatter then all-gather, each P-1 steps of bytes/P to the next
// worker, every step waiting for the previous one's chunk from the worker before.
CollectiveSchedule ring(int p, int w, double bytes) {
  CollectiveSchedule s(1);
  if (p < 2) return s;
  for (int step = 0; step < 2 * (p - 1); ++step)
    s[0].push_back(CollectiveRound{{CollectiveSend{(w + 1) % p, bytes / p}}, {(w + p - 1) % p}});
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

// Reduce up the tree, then broadcast down, each pipelined in `chunks` chunks: in round c
// a node takes chunk c from one side and passes chunk c-1 on to the other.
std::vector<CollectiveRound> tree_channel(const Tree& tree, int w, double bytes, int chunks) {
  std::vector<CollectiveRound> rounds;
  const int parent = tree.parent(w);
  const std::vector<int> children = tree.children(w);
  const double chunk = bytes / chunks;
  const auto add = [&](CollectiveRound r) {
    if (!r.sends.empty() || !r.receives.empty()) rounds.push_back(std::move(r));
  };
  for (int c = 0; c <= chunks; ++c) {  // reduce
    CollectiveRound r;
    if (c < chunks) r.receives = children;
    if (c >= 1 && parent >= 0) r.sends.push_back(CollectiveSend{parent, chunk});
    add(r);
  }
  for (int c = 0; c <= chunks; ++c) {  // broadcast; the root has every chunk already
    CollectiveRound r;
    if (parent >= 0 && c < chunks) r.receives.push_back(parent);
    const int out = parent >= 0 ? c - 1 : c;
    if (out >= 0 && out < chunks)
      for (int child : children) r.sends.push_back(CollectiveSend{child, chunk});
    add(r);
  }
  return rounds;
}

// Double binary tree (NCCL's across nodes): two trees, each carrying half of the vector,
// arranged so that a worker that is a leaf in one is an inner node in the other; the
// latency grows with log P instead of P.
CollectiveSchedule double_tree(int p, int w, double bytes, int chunks) {
  CollectiveSchedule s;
  if (p < 2) return s;
  for (bool mirrored : {false, true})
    s.push_back(tree_channel(Tree{p, mirrored}, w, bytes / 2, std::max(1, chunks)));
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

CollectiveLoad collective_load(CollectiveKind kind, int workers, double bytes, int chunks) {
  CollectiveLoad load;
  std::vector<double> tx(std::size_t(std::max(0, workers)), 0.0), rx = tx;
  // A ring is the same on every worker, shifted: one schedule tells all (and keeps a
  // 1,000-worker ring from expanding a million rounds).
  const int distinct = kind == CollectiveKind::ring ? std::min(workers, 1) : workers;
  for (int w = 0; w < distinct; ++w) {
    double messages = 0;
    for (const auto& channel : collective_schedule(kind, workers, w, bytes, chunks)) {
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
  if (distinct < workers) {  // symmetric: what worker 0 sends, each worker sends and receives
    load.tx_bytes_max = load.rx_bytes_max = tx[0];
    load.total_bytes = tx[0] * workers;
    return load;
  }
  for (int w = 0; w < workers; ++w) {
    load.tx_bytes_max = std::max(load.tx_bytes_max, tx[std::size_t(w)]);
    load.rx_bytes_max = std::max(load.rx_bytes_max, rx[std::size_t(w)]);
    load.total_bytes += tx[std::size_t(w)];
  }
  return load;
}

}  // namespace possim
