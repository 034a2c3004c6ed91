#include "sim/network/star_sharing.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

namespace possim::sim {

StarSharing::StarSharing(std::vector<double> tx_bytes_per_s, std::vector<double> rx_bytes_per_s) {
  if (tx_bytes_per_s.size() != rx_bytes_per_s.size())
    throw std::logic_error("star sharing: tx and rx capacities for different node counts");
  for (std::size_t n = 0; n < tx_bytes_per_s.size(); ++n) {
    for (const double c : {tx_bytes_per_s[n], rx_bytes_per_s[n]})
      if (!(c > 0)) throw std::logic_error("star sharing: node " + std::to_string(n) + " has a link of capacity <= 0");
    capacity_.push_back(tx_bytes_per_s[n]);
    capacity_.push_back(rx_bytes_per_s[n]);
  }
  load_.assign(capacity_.size(), 0);
  peak_.assign(capacity_.size(), 0);
  flows_on_.assign(capacity_.size(), 0);
  pairs_on_.assign(capacity_.size(), 0);
  used_at_.assign(capacity_.size(), kNone);
  left_.assign(capacity_.size(), 0);
  share_.assign(capacity_.size(), 0);
  users_.assign(capacity_.size(), 0);
  local_.assign(capacity_.size(), 0);
  heap_at_.assign(capacity_.size(), kNone);
}

StarSharing::FlowId StarSharing::add(int src, int dst, double bytes, double latency_s, Multiplicity m) {
  const int nodes = int(capacity_.size() / 2);
  // Multiplicities count nodes: whole numbers, so the links' running flow counts stay exact.
  if (src < 0 || dst < 0 || src >= nodes || dst >= nodes || !(bytes > 0) || !(latency_s >= 0) || !(m.tx >= 1) ||
      !(m.rx >= 1) || !(m.tx <= 1e9) || !(m.rx <= 1e9) || m.tx != std::floor(m.tx) || m.rx != std::floor(m.rx))
    throw std::logic_error("star sharing: a flow " + std::to_string(src) + " -> " + std::to_string(dst) + " of " +
                           std::to_string(bytes) + " bytes after " + std::to_string(latency_s) + " s");
  FlowId f;
  if (!free_flow_.empty()) {
    f = free_flow_.back();
    free_flow_.pop_back();
  } else {
    f = FlowId(flow_.size());
    flow_.emplace_back();
  }
  Flow& x = flow_[f];
  x = Flow{next_seq_++, kNone, src, dst, bytes, 0, m};
  ++in_flight_;
  if (latency_s > kResolution_s) {
    waiting_.push_back(Waiting{now_s_ + latency_s, x.seq, f});
    std::push_heap(waiting_.begin(), waiting_.end(), std::greater<>());
  } else {
    start_moving(f);
  }
  return f;
}

void StarSharing::start_moving(FlowId f) {
  Flow& x = flow_[f];
  const std::uint64_t key = pair_key(x.src, x.dst);
  std::uint32_t id = pair_of_.find(key);
  if (id == kNone) {
    if (!free_pair_.empty()) {
      id = free_pair_.back();
      free_pair_.pop_back();
    } else {
      id = std::uint32_t(pair_.size());
      pair_.emplace_back();
      active_at_.push_back(kNone);
    }
    pair_of_.insert(key, id);
    Pair& p = pair_[id];
    p.src = x.src;
    p.dst = x.dst;
    active_at_[id] = std::uint32_t(active_.size());
    active_.push_back(id);
    // A new processor-sharing clock; its rate comes from the next solve.
    clock_.push(std::uint32_t(tx(x.src)), std::uint32_t(rx(x.dst)), x.m);
    count_pair(clock_.slot.back(), +1);
  }
  Pair& p = pair_[id];
  const std::size_t k = active_at_[id];
  if (!(Multiplicity{clock_.slot[k].mult_tx, clock_.slot[k].mult_rx} == x.m))
    throw std::logic_error("star sharing: flows " + std::to_string(x.src) + " -> " + std::to_string(x.dst) +
                           " standing for different numbers of flows");
  x.pair = id;
  x.target = clock_.served[k] + x.bytes;
  p.due.emplace_back(x.target, f);
  std::push_heap(p.due.begin(), p.due.end(), std::greater<>());
  clock_.head[k] = p.due.front().first;
  count_flow(clock_.slot[k], +1);
}

void StarSharing::count_flow(Slot& q, int delta) {
  q.moving = std::uint32_t(int(q.moving) + delta);
  flows_on_[q.tx] += delta * q.mult_tx;
  flows_on_[q.rx] += delta * q.mult_rx;
  solved_ = false;
}

void StarSharing::count_pair(const Slot& q, int delta) {
  for (const std::uint32_t link : {q.tx, q.rx}) {
    pairs_on_[link] = std::uint32_t(int(pairs_on_[link]) + delta);
    if (delta > 0 && pairs_on_[link] == 1) {
      used_at_[link] = std::uint32_t(used_.size());
      used_.push_back(link);
    } else if (delta < 0 && pairs_on_[link] == 0) {
      const std::uint32_t last = used_.back();
      used_[used_at_[link]] = last;
      used_at_[last] = used_at_[link];
      used_.pop_back();
      used_at_[link] = kNone;
    }
  }
}

void StarSharing::advance(double t_s, std::vector<FlowId>& landed) {
  if (t_s < now_s_) throw std::logic_error("star sharing: time goes back");
  const double dt = t_s - now_s_;
  const std::size_t first = landed.size();
  if (dt > 0) {
    if (!solved_) solve();  // the rates that held since now_s_
    for (const std::uint32_t j : loaded_) peak_[j] = std::max(peak_[j], load_[j]);  // the others carry nothing
    now_s_ = t_s;
  }
  // Every clock moves on (in place order, a pass the compiler vectorises), then landings:
  // a flow within kResolution_s of its bytes has landed. A wake-up well before the first
  // landing next_event_s foresaw (a send from an actor) looks at no pair's flows.
  if (dt > 0) {
    double* served = clock_.served.data();
    const double* rate = clock_.rate.data();
    for (std::size_t i = 0, n = active_.size(); i < n; ++i) served[i] += rate[i] * dt;
  }
  const bool may_land = !solved_ || t_s >= first_landing_s_ - 4 * kResolution_s;
  for (std::size_t i = 0; may_land && i < active_.size();) {
    const double slack = clock_.rate[i] * kResolution_s;
    if (clock_.head[i] - clock_.served[i] > slack) {  // its first flow is not due yet
      ++i;
      continue;
    }
    const std::uint32_t id = active_[i];
    Pair& p = pair_[id];
    while (!p.due.empty() && p.due.front().first - clock_.served[i] <= slack) {
      std::pop_heap(p.due.begin(), p.due.end(), std::greater<>());
      landed.push_back(p.due.back().second);
      p.due.pop_back();
      count_flow(clock_.slot[i], -1);
    }
    if (clock_.slot[i].moving > 0) {
      clock_.head[i] = p.due.front().first;
      ++i;
      continue;
    }
    // Idle: the pair's slot goes back (the pair moved into place i is looked at next).
    pair_of_.erase(pair_key(p.src, p.dst));
    count_pair(clock_.slot[i], -1);
    active_[i] = active_.back();
    clock_.move(i, active_.size() - 1);
    active_at_[active_[i]] = std::uint32_t(i);
    active_.pop_back();
    clock_.pop();
    active_at_[id] = kNone;
    free_pair_.push_back(id);
  }
  for (std::size_t i = first; i < landed.size(); ++i) {
    flow_[landed[i]].pair = kNone;
    free_flow_.push_back(landed[i]);
    --in_flight_;
  }
  std::sort(landed.begin() + long(first), landed.end(),
            [this](FlowId a, FlowId b) { return flow_[a].seq < flow_[b].seq; });
  // Latencies that have ended.
  while (!waiting_.empty() && waiting_.front().until_s <= now_s_ + kResolution_s) {
    std::pop_heap(waiting_.begin(), waiting_.end(), std::greater<>());
    const FlowId f = waiting_.back().flow;
    waiting_.pop_back();
    start_moving(f);
  }
}

double StarSharing::next_event_s() {
  if (!solved_) solve();
  double next = std::numeric_limits<double>::infinity();
  const double* served = clock_.served.data();
  const double* rate = clock_.rate.data();
  const double* head = clock_.head.data();
  for (std::size_t i = 0, n = active_.size(); i < n; ++i) next = std::min(next, now_s_ + (head[i] - served[i]) / rate[i]);
  first_landing_s_ = next;
  if (!waiting_.empty()) next = std::min(next, waiting_.front().until_s);
  return next;
}

double StarSharing::rate_bytes_per_s(FlowId f) {
  if (!solved_) solve();
  return flow_[f].pair == kNone ? 0.0 : clock_.rate[active_at_[flow_[f].pair]];
}

double StarSharing::load_bytes_per_s(std::size_t link) {
  if (!solved_) solve();
  return load_[link];
}

// Progressive filling: the link whose remaining capacity per unfixed flow is smallest
// fixes its flows at that share; their other links lose what they take. The links wait
// in a binary heap indexed by link, so a link whose share changes moves in O(log links).
// Only the links of moving pairs take part, in link order (the order a solve over every
// link would give them, equal shares included), and each link's pairs in place order:
// equal shares pop in an order that depends on that, and so, by a rounding, do the rates
// (a canonical order was tried: SimGrid results moved by 1e-4 on a shipped scenario).
// A solve is O(pairs log links), whatever the node count.
void StarSharing::solve() {
  first_landing_s_ = -std::numeric_limits<double>::infinity();  // foreseen at other rates
  // The links in use, ascending, and per link its pairs' flows and its members' place:
  // all from the counts kept as pairs start, land and idle, not from a pass over the pairs.
  // Everything below reads the moving pairs' records in place order (Clocks) or one
  // link's members in sequence, never pair_ at random.
  order_.assign(used_.begin(), used_.end());
  std::sort(order_.begin(), order_.end());
  const std::size_t links = order_.size();
  const std::size_t pairs = active_.size();
  const Slot* slot = clock_.slot.data();
  first_.resize(links + 1);
  first_[0] = 0;
  for (std::size_t k = 0; k < links; ++k) {
    const std::uint32_t j = order_[k];
    local_[j] = std::uint32_t(k);
    left_[j] = capacity_[j];
    users_[j] = flows_on_[j];  // whole numbers: the same as summing the pairs' in any order
    first_[k + 1] = first_[k] + pairs_on_[j];
  }
  // A pair's flows on its tx and rx links, counted by multiplicity (integers: exact).
  const auto flows_tx = [](const Slot& q) { return double(q.moving) * q.mult_tx; };
  const auto flows_rx = [](const Slot& q) { return double(q.moving) * q.mult_rx; };
  member_.resize(first_[links]);
  at_.assign(first_.begin(), first_.end() - 1);
  for (std::size_t k = 0; k < pairs; ++k) {
    member_[at_[local_[slot[k].tx]]++] = Member{std::uint32_t(k), slot[k].rx, flows_rx(slot[k])};
    member_[at_[local_[slot[k].rx]]++] = Member{std::uint32_t(k), slot[k].tx, flows_tx(slot[k])};
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  heap_.clear();
  for (const std::uint32_t j : order_) {  // every used link has users
    share_[j] = left_[j] / users_[j];
    heap_at_[j] = std::uint32_t(heap_.size());
    heap_.push_back(j);
  }
  for (std::size_t i = heap_.size() / 2; i-- > 0;) sift_down(i);
  fixed_.assign(pairs, 0);
  double* rate = clock_.rate.data();
  std::fill(rate, rate + pairs, -1.0);  // -1: unfixed
  while (!heap_.empty() && share_[heap_[0]] < kInf) {
    const std::uint32_t j = heap_[0];
    const double share = share_[j];
    remove_top();
    for (std::uint32_t m = first_[local_[j]]; m < first_[local_[j] + 1]; ++m) {
      const Member& e = member_[m];
      if (fixed_[e.slot]) continue;
      fixed_[e.slot] = 1;
      rate[e.slot] = share;
      const std::uint32_t other = e.other;
      if (heap_at_[other] == kNone) continue;  // already fixed
      left_[other] = std::max(0.0, left_[other] - e.flows_other * share);
      users_[other] -= e.flows_other;
      const double was = share_[other];
      share_[other] = users_[other] > 0 ? left_[other] / users_[other] : kInf;
      // A share that did not move leaves the heap as it is (both sifts compare strictly);
      // in a symmetric run most do not, and the sifts were a tenth of the run.
      if (share_[other] < was) sift_up(heap_at_[other]);  // only rounding can lower a share
      else if (share_[other] > was) sift_down(heap_at_[other]);
    }
  }
  for (const std::uint32_t j : heap_) heap_at_[j] = kNone;  // links left with no unfixed flow
  heap_.clear();
  // Loads: the links loaded at the last solve are cleared, then this solve's are summed.
  for (const std::uint32_t j : loaded_) load_[j] = 0.0;
  for (std::size_t k = 0; k < pairs; ++k) {
    load_[slot[k].tx] += flows_tx(slot[k]) * rate[k];
    load_[slot[k].rx] += flows_rx(slot[k]) * rate[k];
  }
  loaded_.swap(order_);
  solved_ = true;
}

void StarSharing::place(std::size_t i, std::uint32_t link) {
  heap_[i] = link;
  heap_at_[link] = std::uint32_t(i);
}

void StarSharing::sift_up(std::size_t i) {
  const std::uint32_t link = heap_[i];
  while (i > 0 && share_[heap_[(i - 1) / 2]] > share_[link]) {
    place(i, heap_[(i - 1) / 2]);
    i = (i - 1) / 2;
  }
  place(i, link);
}

void StarSharing::sift_down(std::size_t i) {
  const std::uint32_t link = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && share_[heap_[c + 1]] < share_[heap_[c]]) ++c;
    if (!(share_[heap_[c]] < share_[link])) break;
    place(i, heap_[c]);
    i = c;
  }
  place(i, link);
}

void StarSharing::remove_top() {
  heap_at_[heap_[0]] = kNone;
  const std::uint32_t last = heap_.back();
  heap_.pop_back();
  if (heap_.empty()) return;
  place(0, last);
  sift_down(0);
}

}  // namespace possim::sim
