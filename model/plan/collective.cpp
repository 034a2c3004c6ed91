#include "model/plan/collective.hpp"
#include "model/plan/work_count.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
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

// A collective's shape, whatever its bytes and the rates: per worker and channel, how many
// receives and sends each round has and on which links (dense ids for (stream, src, dst)),
// and per worker how many sends it makes and takes. Every send of one collective carries the
// same bytes (send_bytes), so the shape and that one number give its whole load.
struct Shape {
  struct Channel {
    std::vector<std::uint32_t> receives, sends;  // per round: how many
    std::vector<std::uint32_t> in, out;          // their links, in round order
  };
  std::vector<Channel> channels;                 // every worker's, worker by worker
  std::vector<std::size_t> first_channel;        // per worker, and one past the last
  std::vector<std::uint32_t> sends_on_link;      // per link
  std::vector<std::uint32_t> tx_sends, rx_sends;  // per worker
  int rounds_max = 0;
  std::size_t rounds = 0;  // all workers' rounds: what keeping it costs
};

Shape make_shape(CollectiveKind kind, int workers, int chunks) {
  Shape shape;
  std::unordered_map<std::uint64_t, std::uint32_t> id_of;
  const std::uint64_t p = std::uint64_t(workers);
  const auto link = [&](int stream, int src, int dst) {
    const auto [it, fresh] = id_of.try_emplace((std::uint64_t(stream) * p + std::uint64_t(src)) * p + std::uint64_t(dst),
                                               std::uint32_t(id_of.size()));
    if (fresh) shape.sends_on_link.push_back(0);
    return it->second;
  };
  shape.tx_sends.assign(std::size_t(workers), 0);
  shape.rx_sends.assign(std::size_t(workers), 0);
  for (int w = 0; w < workers; ++w) {
    shape.first_channel.push_back(shape.channels.size());
    for (const auto& rounds : collective_schedule(kind, workers, w, 1.0, chunks)) {
      Shape::Channel c;
      for (const CollectiveRound& r : rounds) {
        c.receives.push_back(std::uint32_t(r.receives.size()));
        c.sends.push_back(std::uint32_t(r.sends.size()));
        for (const CollectiveReceive& x : r.receives) c.in.push_back(link(x.stream, x.peer, w));
        for (const CollectiveSend& x : r.sends) {
          const std::uint32_t l = link(x.stream, w, x.peer);
          c.out.push_back(l);
          ++shape.sends_on_link[l];
          ++shape.tx_sends[std::size_t(w)];
          ++shape.rx_sends[std::size_t(x.peer)];
        }
      }
      shape.rounds_max = std::max(shape.rounds_max, int(rounds.size()));
      shape.rounds += rounds.size();
      shape.channels.push_back(std::move(c));
    }
  }
  shape.first_channel.push_back(shape.channels.size());
  work::count(shape.rounds + shape.sends_on_link.size());
  return shape;
}

// The bytes of each send of a collective (as collective_schedule writes them).
double send_bytes(CollectiveKind kind, int workers, double bytes, int chunks) {
  switch (kind) {
    case CollectiveKind::ring: return bytes / workers;
    case CollectiveKind::double_tree: return bytes / 2 / std::max(1, chunks);
  }
  return 0;
}

// Shapes recur (every layer of a model at one cluster size, every bandwidth of a sweep):
// each thread keeps the ones it built, up to kMaxKeptRounds rounds in all.
constexpr std::size_t kMaxKeptRounds = 2'000'000;

const Shape& shape_of(CollectiveKind kind, int workers, int chunks, Shape& scratch) {
  thread_local std::map<std::tuple<int, int, int>, Shape> kept;
  thread_local std::size_t kept_rounds = 0;
  const auto key = std::make_tuple(int(kind), workers, chunks);
  if (const auto it = kept.find(key); it != kept.end()) return it->second;
  scratch = make_shape(kind, workers, chunks);
  if (scratch.rounds > kMaxKeptRounds) return scratch;  // too large to keep: used once
  if (kept_rounds + scratch.rounds > kMaxKeptRounds) {
    kept.clear();
    kept_rounds = 0;
  }
  kept_rounds += scratch.rounds;
  return kept.emplace(key, std::move(scratch)).first->second;
}

// Critical path of the rounds of every worker: a round starts when its channel's previous
// one ends, its sends (each of `bytes`) leave after their message costs and land a latency
// later; it ends when they have landed and its receives have arrived. The k-th receive on
// a link takes the k-th send on it.
PathCost critical_path(const Shape& shape, double bytes, const PathRates& rates) {
  const auto later = [&](const PathCost& a, const PathCost& b) { return rates.time(a) >= rates.time(b) ? a : b; };
  const std::size_t links = shape.sends_on_link.size(), channels = shape.channels.size();
  // Arrivals on each link, in a slot range of one buffer.
  std::vector<std::size_t> first(links + 1, 0);
  for (std::size_t l = 0; l < links; ++l) first[l + 1] = first[l] + shape.sends_on_link[l];
  std::vector<PathCost> arrival(first[links]);
  std::vector<std::size_t> landed(links, 0), taken(links, 0);
  std::vector<std::size_t> next(channels, 0), in_at(channels, 0), out_at(channels, 0);
  std::vector<PathCost> clock(channels);
  PathCost end;
  std::uint64_t walked = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t k = 0; k < channels; ++k) {
      const Shape::Channel& ch = shape.channels[k];
      for (; next[k] < ch.receives.size(); ++next[k]) {
        const std::uint32_t* from = ch.in.data() + in_at[k];
        const std::uint32_t* to = ch.out.data() + out_at[k];
        const std::size_t receives = ch.receives[next[k]], sends = ch.sends[next[k]];
        bool ready = true;
        for (std::size_t i = 0; i < receives && ready; ++i) {
          std::size_t need = taken[from[i]] + 1;
          for (std::size_t j = 0; j < i; ++j)  // several from one peer in a round
            if (from[j] == from[i]) ++need;
          ready = landed[from[i]] >= need;
        }
        if (!ready) break;
        PathCost t = clock[k];
        PathCost sent = t;
        for (std::size_t i = 0; i < sends; ++i) {
          const PathCost a{t.latencies + 1, t.messages + int(sends), t.bytes + bytes};
          arrival[first[to[i]] + landed[to[i]]++] = a;
          sent = later(sent, a);
        }
        t = sent;
        for (std::size_t i = 0; i < receives; ++i) t = later(t, arrival[first[from[i]] + taken[from[i]]++]);
        in_at[k] += receives;
        out_at[k] += sends;
        clock[k] = t;
        end = later(end, t);
        walked += 1 + receives + sends;
        progress = true;
      }
    }
  }
  work::count(walked + channels + links);
  return end;
}

// n sends of b bytes, added one by one (as a walk over the schedule adds them).
double sum_of(std::uint32_t n, double b) {
  double s = 0;
  for (std::uint32_t i = 0; i < n; ++i) s += b;
  work::count(n);
  return s;
}

}  // namespace

CollectiveLoad collective_load(CollectiveKind kind, int workers, double bytes, int chunks, double latency_s,
                               double per_message_s, double bytes_per_s) {
  CollectiveLoad load;
  if (workers < 2) return load;
  const double b = send_bytes(kind, workers, bytes, chunks);
  // A ring is the same on every worker, shifted, and runs in lockstep: 2(P-1) rounds of one
  // send and one receive, worker 0's rounds the path (no schedule needs writing out).
  if (kind == CollectiveKind::ring) {
    const std::uint32_t steps = 2 * std::uint32_t(workers - 1);
    load.rounds_max = int(steps);
    load.messages_max = steps;
    load.tx_bytes_max = load.rx_bytes_max = sum_of(steps, b);
    load.total_bytes = load.tx_bytes_max * workers;
    load.path_latencies = load.rounds_max;
    load.path_messages = int(load.messages_max);
    load.path_bytes = load.tx_bytes_max;
    return load;
  }
  Shape scratch;
  const Shape& shape = shape_of(kind, workers, std::max(1, chunks), scratch);
  load.rounds_max = shape.rounds_max;
  for (int w = 0; w < workers; ++w) {
    const double tx = sum_of(shape.tx_sends[std::size_t(w)], b);
    load.messages_max = std::max(load.messages_max, double(shape.tx_sends[std::size_t(w)]));
    load.tx_bytes_max = std::max(load.tx_bytes_max, tx);
    load.rx_bytes_max = std::max(load.rx_bytes_max, sum_of(shape.rx_sends[std::size_t(w)], b));
    load.total_bytes += tx;
  }
  const PathCost path = critical_path(shape, b, PathRates{latency_s, per_message_s, bytes_per_s});
  load.path_latencies = path.latencies;
  load.path_messages = path.messages;
  load.path_bytes = path.bytes;
  return load;
}

}  // namespace possim
