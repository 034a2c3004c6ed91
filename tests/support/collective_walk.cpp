#include "support/collective_walk.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace possim::test {

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

// Per worker and channel, the links (dense ids for (stream, src, dst)) each round takes
// from and sends on.
struct Channel {
  std::vector<std::uint32_t> receives, sends;  // per round: how many
  std::vector<std::uint32_t> in, out;          // all rounds' links, in order
};

}  // namespace

CollectiveLoad collective_load_walked(CollectiveKind kind, int workers, double bytes, int chunks,
                                      double latency_s, double per_message_s, double bytes_per_s) {
  CollectiveLoad load;
  if (workers < 2) return load;
  std::vector<double> tx(std::size_t(workers), 0.0), rx = tx;
  std::vector<double> messages(std::size_t(workers), 0.0);
  std::vector<Channel> channels;
  std::unordered_map<std::uint64_t, std::uint32_t> id_of;
  std::vector<std::size_t> sends_on_link;
  const std::uint64_t p = std::uint64_t(workers);
  const auto link = [&](int stream, int src, int dst) {
    const auto [it, fresh] = id_of.try_emplace((std::uint64_t(stream) * p + std::uint64_t(src)) * p + std::uint64_t(dst),
                                               std::uint32_t(id_of.size()));
    if (fresh) sends_on_link.push_back(0);
    return it->second;
  };
  double send_bytes = 0;
  for (int w = 0; w < workers; ++w)
    for (const auto& rounds : collective_schedule(kind, workers, w, bytes, chunks)) {
      Channel c;
      for (const CollectiveRound& r : rounds) {
        c.receives.push_back(std::uint32_t(r.receives.size()));
        c.sends.push_back(std::uint32_t(r.sends.size()));
        for (const CollectiveReceive& x : r.receives) c.in.push_back(link(x.stream, x.peer, w));
        for (const CollectiveSend& x : r.sends) {
          const std::uint32_t l = link(x.stream, w, x.peer);
          c.out.push_back(l);
          ++sends_on_link[l];
          tx[std::size_t(w)] += x.bytes;
          rx[std::size_t(x.peer)] += x.bytes;
          messages[std::size_t(w)] += 1;
          send_bytes = x.bytes;
        }
      }
      load.rounds_max = std::max(load.rounds_max, int(rounds.size()));
      channels.push_back(std::move(c));
    }
  for (int w = 0; w < workers; ++w) {
    load.tx_bytes_max = std::max(load.tx_bytes_max, tx[std::size_t(w)]);
    load.rx_bytes_max = std::max(load.rx_bytes_max, rx[std::size_t(w)]);
    load.messages_max = std::max(load.messages_max, messages[std::size_t(w)]);
    load.total_bytes += tx[std::size_t(w)];
  }
  // Critical path: a round starts when its channel's previous one ends, its sends leave after
  // their message costs and land a latency later; it ends when they have landed and its
  // receives have arrived. The k-th receive on a link takes the k-th send on it.
  const PathRates rates{latency_s, per_message_s, bytes_per_s};
  const auto later = [&](const PathCost& a, const PathCost& b) { return rates.time(a) >= rates.time(b) ? a : b; };
  const std::size_t links = sends_on_link.size(), n = channels.size();
  std::vector<std::size_t> first(links + 1, 0);
  for (std::size_t l = 0; l < links; ++l) first[l + 1] = first[l] + sends_on_link[l];
  std::vector<PathCost> arrival(first[links]);
  std::vector<std::size_t> landed(links, 0), taken(links, 0);
  std::vector<std::size_t> next(n, 0), in_at(n, 0), out_at(n, 0);
  std::vector<PathCost> clock(n);
  std::vector<bool> posted(n, false);
  PathCost end;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t k = 0; k < n; ++k) {
      const Channel& ch = channels[k];
      for (; next[k] < ch.receives.size(); ++next[k]) {
        const std::uint32_t* from = ch.in.data() + in_at[k];
        const std::uint32_t* to = ch.out.data() + out_at[k];
        const std::size_t receives = ch.receives[next[k]], sends = ch.sends[next[k]];
        PathCost t = clock[k];
        if (!posted[k]) {  // a round's sends leave at its start, before its receives (a ring's cycle)
          for (std::size_t i = 0; i < sends; ++i)
            arrival[first[to[i]] + landed[to[i]]++] = PathCost{t.latencies + 1, t.messages + int(sends), t.bytes + send_bytes};
          posted[k] = true;
          progress = true;
        }
        bool ready = true;
        for (std::size_t i = 0; i < receives && ready; ++i) {
          std::size_t need = taken[from[i]] + 1;
          for (std::size_t j = 0; j < i; ++j)  // several from one peer in a round
            if (from[j] == from[i]) ++need;
          ready = landed[from[i]] >= need;
        }
        if (!ready) break;
        PathCost sent = t;
        for (std::size_t i = 0; i < sends; ++i) sent = later(sent, PathCost{t.latencies + 1, t.messages + int(sends), t.bytes + send_bytes});
        t = sent;
        for (std::size_t i = 0; i < receives; ++i) t = later(t, arrival[first[from[i]] + taken[from[i]]++]);
        posted[k] = false;
        in_at[k] += receives;
        out_at[k] += sends;
        clock[k] = t;
        end = later(end, t);
        progress = true;
      }
    }
  }
  load.path_latencies = end.latencies;
  load.path_messages = end.messages;
  load.path_bytes = end.bytes;
  return load;
}

}  // namespace possim::test
