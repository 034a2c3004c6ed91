#include "model/plan/collective.hpp"
#include "model/plan/work_count.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

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

// Paths to one point of a collective, by length: chains[L] is the most message costs in
// series over any path of L hops to it (-1: no path of L hops). Every hop of one collective
// carries the same bytes and latency, so a path's time is L hops plus chains[L] message costs.
using Chains = std::vector<int>;

// One hop more, sent from a round that posts `sends` messages.
Chains hop(const Chains& a, int sends) {
  Chains r(a.size() + 1, -1);
  for (std::size_t l = 0; l < a.size(); ++l)
    if (a[l] >= 0) r[l + 1] = a[l] + sends;
  return r;
}

void merge(Chains& a, const Chains& b) {
  if (b.size() > a.size()) a.resize(b.size(), -1);
  for (std::size_t l = 0; l < b.size(); ++l) a[l] = std::max(a[l], b[l]);
}

// The double binary tree's critical path, over its distinct nodes only. In heap order the
// subtree under a node is the complete binary tree of its size, so the up pass depends on
// that size alone (two sizes per level); the down pass depends on the messages its
// ancestors post per round (two children each, but for at most one inner node). Both trees
// are one heap (the second mirrored), so one tree's paths are both trees'. The rounds are
// collective_schedule's: round c of a channel takes chunk c from one side and passes chunk
// c-1 on; it starts when the previous round ends and ends when its sends have landed and
// its receives arrived.
class TreePaths {
 public:
  TreePaths(int workers, int chunks) : chunks_(chunks) {
    const std::vector<Chains> in = from_children(workers);
    const int sends = kids(workers);
    const std::vector<Chains> clock = channel(&in, sends);  // the root turns chunks around
    to_children(std::string(1, char('0' + sends)), passed_on(clock, sends), workers);
  }
  const Chains& end() const { return end_; }

 private:
  static int kids(int n) { return std::min(2, n - 1); }
  // The sizes of the two subtrees under the root of a complete binary tree of n nodes.
  static std::pair<int, int> split(int n) {
    int full = 1;  // nodes on the last full level
    while (4 * full - 1 <= n) full *= 2;
    const int last = n - (2 * full - 1);  // nodes on the partial level below it, left first
    const int above = full - 1;           // a subtree's nodes on the full levels
    return {above + std::min(last, full), above + std::max(0, last - full)};
  }

  // One channel: `in` the arrivals of each chunk (none for a leaf's up channel), `sends`
  // messages posted in every round from the second. The clock after each round c = 0..chunks.
  std::vector<Chains> channel(const std::vector<Chains>* in, int sends) {
    std::vector<Chains> clock(std::size_t(chunks_) + 1);
    Chains t{0};
    std::uint64_t steps = 0;
    for (int c = 0; c <= chunks_; ++c) {
      const bool take = in && c < chunks_, send = sends > 0 && c >= 1;
      if (send) t = hop(t, sends);  // ends after its sends land (later than its start)
      if (take) merge(t, (*in)[std::size_t(c)]);
      clock[std::size_t(c)] = t;
      steps += t.size();
    }
    work::count(steps);
    merge(end_, t);
    return clock;
  }

  // Where each chunk arrives at the other end of a channel whose clock is `clock` and
  // whose rounds post `sends` messages: chunk c leaves in round c+1.
  std::vector<Chains> passed_on(const std::vector<Chains>& clock, int sends) const {
    std::vector<Chains> out;
    for (int c = 0; c < chunks_; ++c) out.push_back(hop(clock[std::size_t(c)], sends));
    return out;
  }

  // Arrivals at the parent of each chunk from a non-root node with a subtree of n nodes.
  const std::vector<Chains>& up(int n) {
    if (const auto it = up_.find(n); it != up_.end()) return it->second;
    const std::vector<Chains> in = n > 1 ? from_children(n) : std::vector<Chains>{};
    std::vector<Chains> out = passed_on(channel(n > 1 ? &in : nullptr, 1), 1);
    return up_.emplace(n, std::move(out)).first->second;
  }

  // The chunks a node with a subtree of n > 1 nodes takes from its children (one or two).
  std::vector<Chains> from_children(int n) {
    const auto [left, right] = split(n);
    std::vector<Chains> in = up(left);
    if (right > 0)
      for (int c = 0; c < chunks_; ++c) merge(in[std::size_t(c)], up(right)[std::size_t(c)]);
    return in;
  }

  // A non-root node of subtree size n taking each chunk at `in` from its parent, whose
  // ancestors (root first) post the messages per round that `key` spells.
  void down(const std::string& parents, const std::vector<Chains>& in, int n) {
    const int sends = kids(n);
    const std::string key = parents + char('0' + sends);
    auto it = down_.find(key);
    if (it == down_.end()) {
      const std::vector<Chains> clock = channel(&in, sends);  // a leaf's too: its end counts
      it = down_.emplace(key, sends > 0 ? passed_on(clock, sends) : std::vector<Chains>{}).first;
    }
    if (sends > 0) to_children(key, it->second, n);
  }

  // The children of a node with a subtree of n > 1 nodes take each chunk at `arrivals`
  // (children of equal subtrees alike: one walk).
  void to_children(const std::string& key, const std::vector<Chains>& arrivals, int n) {
    const auto [left, right] = split(n);
    down(key, arrivals, left);
    if (right > 0 && right != left) down(key, arrivals, right);
  }

  int chunks_;
  std::map<int, std::vector<Chains>> up_;             // by subtree size
  std::map<std::string, std::vector<Chains>> down_;   // children's arrivals, by ancestors' sends
  Chains end_;
};

// What a double tree of (workers, chunks) is whatever its bytes and rates: its critical
// path's candidates (hops, message costs), none dominated by another, and the most sends
// any worker makes (both trees: one to the parent and one to each child per chunk).
struct TreeShape {
  std::vector<std::pair<int, int>> paths;
  int sends_max = 0;
};

// A worker's edges in both trees, the most over workers: an inner node of one tree
// (parent and two children) is a leaf of the other (the mirror puts it on the other half),
// so 4 from five workers on; below that, a root (two children) and a leaf.
int degree_sum_max(int p) { return p >= 5 ? 4 : p >= 3 ? 3 : 2; }

// Shapes recur (every layer of a model at one cluster size, every bandwidth of a sweep):
// each thread keeps the ones it built.
const TreeShape& tree_shape(int workers, int chunks) {
  thread_local std::map<std::pair<int, int>, TreeShape> kept;
  const auto key = std::make_pair(workers, chunks);
  if (const auto it = kept.find(key); it != kept.end()) return it->second;
  if (kept.size() >= 4096) kept.clear();
  TreeShape shape;
  const Chains end = TreePaths(workers, chunks).end();
  int most = -1;  // keep a path only if it has more message costs than every longer one
  for (std::size_t l = end.size(); l-- > 0;)
    if (end[l] > most) {
      shape.paths.emplace_back(int(l), end[l]);
      most = end[l];
    }
  shape.sends_max = degree_sum_max(workers) * chunks;
  return kept.emplace(key, std::move(shape)).first->second;
}

}  // namespace

CollectiveLoad collective_load(CollectiveKind kind, int workers, double bytes, int chunks, double latency_s,
                               double per_message_s, double bytes_per_s) {
  CollectiveLoad load;
  if (workers < 2) return load;
  // A ring is the same on every worker, shifted, and runs in lockstep: 2(P-1) rounds of one
  // send and one receive, worker 0's rounds the path.
  if (kind == CollectiveKind::ring) {
    const int steps = 2 * (workers - 1);
    load.rounds_max = steps;
    load.messages_max = steps;
    load.tx_bytes_max = load.rx_bytes_max = steps * (bytes / workers);
    load.total_bytes = load.tx_bytes_max * workers;
    load.path_latencies = steps;
    load.path_messages = steps;
    load.path_bytes = load.tx_bytes_max;
    return load;
  }
  // Double tree: every send is a chunk of half the tensor; each tree sends each chunk up and
  // down each of its P-1 edges.
  chunks = std::max(1, chunks);
  const double b = bytes / 2 / chunks;
  const TreeShape& shape = tree_shape(workers, chunks);
  load.rounds_max = chunks + 1;
  load.messages_max = shape.sends_max;
  load.tx_bytes_max = load.rx_bytes_max = shape.sends_max * b;  // a tree node sends and takes alike
  load.total_bytes = 4.0 * (workers - 1) * chunks * b;
  double longest = -1;
  for (const auto& [hops, messages] : shape.paths) {
    const double t = hops * latency_s + messages * per_message_s + (bytes_per_s > 0 ? hops * b / bytes_per_s : 0);
    if (t > longest) {
      longest = t;
      load.path_latencies = hops;
      load.path_messages = messages;
      load.path_bytes = hops * b;
    }
  }
  work::count(shape.paths.size());
  return load;
}

}  // namespace possim
