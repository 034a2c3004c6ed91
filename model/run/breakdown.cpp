#include "model/run/breakdown.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "model/plan/sync_plan.hpp"
#include "model/run/result.hpp"

namespace possim {

namespace {

// Each step's share while the representative GPU runs it, in Step order
// (model/plan/step.hpp): a new step has one by construction. Steps off the GPU name the
// share their resource's wait counts as (tests/model/run/test_breakdown.cpp holds them to it).
constexpr std::array<TimeShare, kSteps> kShareOf = {
    TimeShare::compute,       // forward
    TimeShare::compute,       // backward
    TimeShare::sf_rebuild,    // rebuild
    TimeShare::quantization,  // quantize
    TimeShare::pcie,          // copy_d2h (its host-work part is split off where exposed)
    TimeShare::pcie,          // copy_h2d
    TimeShare::pcie,          // gather
    TimeShare::pcie,          // scatter
    TimeShare::pcie,          // reduce_scatter
    TimeShare::pcie,          // all_gather
    TimeShare::network,       // push
    TimeShare::network,       // pull
    TimeShare::network,       // broadcast
    TimeShare::network,       // allreduce
    TimeShare::server_apply,  // apply
    TimeShare::barrier_wait,  // factors_in: waiting for every peer
    TimeShare::barrier_wait,  // barrier: waiting for every worker, then its round
    TimeShare::compute,       // optimizer: the GPU updating its parameters
};

}  // namespace

TimeShare share_of(const Task& t) { return kShareOf[std::size_t(t.step)]; }

double Breakdown::total() const {
  double sum = 0;
  for (double v : s) sum += v;
  return sum;
}

Breakdown& Breakdown::operator+=(const Breakdown& o) {
  for (std::size_t i = 0; i < kTimeShares; ++i) s[i] += o.s[i];
  return *this;
}

Breakdown& Breakdown::operator*=(double f) {
  for (double& v : s) v *= f;
  return *this;
}

CriticalPath::CriticalPath(const SyncPlan& plan, std::size_t instances, int iterations)
    : plan_(plan),
      timing_(instances),
      end_(std::size_t(std::max(1, iterations)), 0.0),
      last_(std::size_t(std::max(1, iterations)), InstanceTiming::kNone) {}

void CriticalPath::finished(std::size_t i, int t, double end_s) {
  if (last_[std::size_t(t)] == InstanceTiming::kNone || end_s >= end_[std::size_t(t)]) {
    end_[std::size_t(t)] = end_s;
    last_[std::size_t(t)] = std::int64_t(i);
  }
}

void CriticalPath::gpu_busy(std::size_t i, double start_s, double end_s) {
  const Busy b{start_s, end_s, i};
  // Engines report in order of start, nearly always: insert where it belongs otherwise.
  const auto at = std::upper_bound(busy_.begin(), busy_.end(), start_s,
                                   [](double s, const Busy& x) { return s < x.start_s; });
  busy_.insert(at, b);
}

void CriticalPath::count(const Task& task, const Breakdown& b, Breakdown& out, std::vector<LayerPiece>* pieces) const {
  out += b;
  if (pieces && task.layer >= 0 && std::size_t(task.layer) < plan_.layers.size()) pieces->emplace_back(task.layer, b);
}

// A copy between GPU and host runs at the harmonic sum of PCIe and the stack's host work
// on the same bytes (plan_builder.cpp): its time splits between them in that proportion.
Breakdown CriticalPath::piece(const Task& task, TimeShare share, double seconds) const {
  Breakdown b;
  if (info(task.resource).host_work) {
    const double host = plan_.rates.copy_host_share;
    b[TimeShare::host_copy] = seconds * host;
    b[TimeShare::pcie] = seconds * (1 - host);
  } else {
    b[share] = seconds;
  }
  return b;
}

void CriticalPath::walk(std::int64_t at, double cursor, double lower, Breakdown& out,
                        std::vector<LayerPiece>* pieces) const {
  while (at != InstanceTiming::kNone && cursor > lower) {
    const InstanceTiming& x = timing_[std::size_t(at)];
    const Task& task = plan_.tasks[x.task];
    // What held it back: its resource if it queued, else the dependency that released
    // it; with neither (it waited for nothing), it covers the rest of the gap.
    const std::int64_t next = x.start_s > x.ready_s && x.queued_behind != InstanceTiming::kNone
                                  ? x.queued_behind
                                  : x.released_by;
    const double from = next == InstanceTiming::kNone ? lower : std::max(lower, std::min(x.start_s, cursor));
    // The representative GPU is idle: it waits for this task, as its resource's row says
    // (another GPU's kernel is a peer it waits for).
    count(task, piece(task, info(task.resource).waited, cursor - from), out, pieces);
    cursor = from;
    at = next;
  }
  // A walk that ran out of instances before the gap's start (not expected: every instance
  // after iteration 0 waits for something) leaves time unexplained: count it as waiting.
  if (cursor > lower) out[TimeShare::barrier_wait] += cursor - lower;
}

Breakdown CriticalPath::attribute(int t, std::vector<LayerPiece>* pieces) const {
  Breakdown total;
  const double begin = t > 0 ? end_[std::size_t(t - 1)] : 0.0, end = end_[std::size_t(t)];
  double idle_from = begin;
  auto it = std::partition_point(busy_.begin(), busy_.end(), [&](const Busy& b) { return b.end_s <= begin; });
  for (; it != busy_.end() && it->start_s < end; ++it) {
    const double from = std::max(begin, it->start_s), to = std::min(end, it->end_s);
    if (from > idle_from) walk(timing_[it->instance].released_by, from, idle_from, total, pieces);
    const InstanceTiming& x = timing_[it->instance];
    const Task& task = plan_.tasks[x.task];
    Breakdown b;
    const double s = x.slowdown > 1 ? double(x.slowdown) : 1.0;
    b[share_of(task)] = (to - from) / s;
    b[TimeShare::barrier_wait] += (to - from) * (1 - 1 / s);
    count(task, b, total, pieces);
    idle_from = std::max(idle_from, to);
  }
  if (end > idle_from) walk(last_[std::size_t(t)], end, idle_from, total, pieces);
  return total;
}

void fill_breakdown(const SyncPlan& plan, const CriticalPath& path, const std::vector<int>& source, Result& r) {
  const int k = int(source.size());
  const int first = k > 1 ? 1 : 0;
  Breakdown sum;
  std::vector<Breakdown> layers(plan.layers.size());
  // Iterations read from the same simulated one (repeats) are attributed once; its total
  // and its layers' pieces are added again in the same order: the sums of attributing it
  // anew, bit for bit.
  struct Attributed {
    int source;
    Breakdown total;
    std::vector<CriticalPath::LayerPiece> pieces;
  };
  std::vector<Attributed> done;
  for (int t = first; t < k; ++t) {
    const int from = source[std::size_t(t)];
    auto it = std::find_if(done.begin(), done.end(), [&](const Attributed& a) { return a.source == from; });
    if (it == done.end()) {
      done.push_back(Attributed{from, {}, {}});
      it = done.end() - 1;
      it->total = path.attribute(from, &it->pieces);
    }
    sum += it->total;
    for (const auto& [layer, b] : it->pieces) layers[std::size_t(layer)] += b;
  }
  const double n = double(k - first);
  sum *= 1 / n;
  r.breakdown = sum;
  for (LayerResult& row : r.layers)
    if (row.layer >= 0 && std::size_t(row.layer) < layers.size()) {
      row.breakdown = layers[std::size_t(row.layer)];
      row.breakdown *= 1 / n;
    }
}

}  // namespace possim
