// The analytic engine's schedule (schedule.hpp): the representative worker's instances in
// time order, as SimGrid runs them. The GPU runs its kernels one at a time, in the order
// they became ready; every other resource (PCIe, the GPU-to-GPU path, the NICs, the CPUs)
// is shared among the instances in flight on it, max-min fair (SimGrid's model for links
// and hosts: each flow or execution gets an equal share of its bottleneck). With
// compute/communication interference, a kernel progresses at 1/kernel slowdown of its rate
// while a communication kernel is in flight, and the GPU-to-GPU path at 1/comm slowdown of
// its capacity while a kernel runs (the fluid model, as SimGrid's power states have it).
//
// An instance's work on a shared resource is its hold (the representative node's mean
// share); what its duration adds beyond that (latency, per-message cost, the busiest node's
// excess) follows once its work is done and holds nothing. A collective of several rounds
// (Prepared::rounds) does so round by round after its launch: a round's share of the work,
// then of the latency, while the others in flight use the wire. Where one node carries more
// than the mean (Prepared::hot_node), a network task or server apply also has a part of
// work on that node's NIC or CPU; it ends once every part is done, and never before its
// duration alone.
#include <algorithm>
#include <cmath>
#include <limits>

#include "model/analytic/schedule.hpp"
#include "model/plan/interference.hpp"
#include "model/plan/task_cost.hpp"

namespace possim::analytic {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Disjoint intervals of time, sorted: when something is in flight (the replayed
// interference of fluid_pass_gap).
class Busy {
 public:
  void add(double a, double b) {
    if (b > a) v_.emplace_back(a, b);
  }
  void merge() {
    std::sort(v_.begin(), v_.end());
    std::vector<std::pair<double, double>> m;
    for (const auto& x : v_)
      if (!m.empty() && x.first <= m.back().second) m.back().second = std::max(m.back().second, x.second);
      else m.push_back(x);
    v_ = std::move(m);
  }
  const std::vector<std::pair<double, double>>& intervals() const { return v_; }

 private:
  std::vector<std::pair<double, double>> v_;
};

// When a schedule has the worker's communication kernels and GPU kernels in flight.
struct Interference {
  Busy comm, kernels;
};

class FluidScheduler {
 public:
  // `replay`, where given: interference follows these intervals instead of what the
  // schedule itself has in flight (one fluid pass over another schedule's overlaps).
  FluidScheduler(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs,
                 const Interference* replay)
      : plan_(plan),
        run_(plan, p, inputs),
        replay_(replay != nullptr),
        live_(!replay_ && plan.rates.interferes()),
        state_(live_ ? run_.s.start.size() : 0, kIdle),
        parts_(run_.s.start.size(), 0),
        floor_(p.hot_node >= 0 ? run_.s.start.size() : 0, 0.0),
        rounds_(p.rounds.empty() ? 0 : run_.s.start.size()),
        class_of_task_(plan.tasks.size(), -1) {
    // Every class the plan can have, found once; whether each resource has one at most.
    for (std::size_t i = 0; i < plan.tasks.size(); ++i)
      if (plan.tasks[i].resource != Resource::gpu && p.held[i].res[0] >= 0) class_of_task_[i] = class_of(p.held[i].res);
    if (p.hot_node >= 0)
      for (int k = 0; k < 3; ++k) hot_class_[std::size_t(k)] = class_of({hot_tx + k, -1});
    std::array<int, kNumRes> classes{};
    for (const FlowClass& c : classes_)
      for (int x : c.res)
        if (x >= 0 && ++classes[std::size_t(x)] > 1) disjoint_ = false;
    if (replay)
      for (int kind : {kComm, kKernels})
        for (const auto& [a, b] : (kind == kComm ? replay->comm : replay->kernels).intervals()) {
          events_.push(Event{a, +1, kind, kNobody});
          events_.push(Event{b, -1, kind, kNobody});
        }
  }

  Schedule run() {
    for (;;) {
      const int flow = next_flow();
      const double tk = kernel_.on ? kernel_.finish : kInf;
      const double tf = flow >= 0 ? classes_[std::size_t(flow)].finish : kInf;
      const double te = events_.empty() ? kInf : events_.top().time;
      const double tr = run_.ready.empty() ? kInf : run_.ready.top().ready_s;
      if (tk == kInf && tf == kInf && te == kInf && tr == kInf) break;
      // At one time: what ends first (its resource is free then), then interference
      // changes, then what becomes ready.
      if (tk <= tf && tk <= te && tk <= tr) finish_kernel();
      else if (tf <= te && tf <= tr) finish_flow(std::size_t(flow));
      else if (te <= tr) event();
      else pop_ready();
    }
    return run_.finish();
  }

 private:
  static constexpr std::int64_t kNobody = InstanceTiming::kNone;
  enum Kind { kComm, kKernels, kNextRound };
  enum State : char { kIdle, kRunning, kCounted, kDone };
  // A communication kernel or (replayed) GPU kernel begins (+1) or ends (-1). A live
  // communication kernel names its instance: it begins after the launch, if still running.
  // kNextRound: a collective's next round begins (delta 0).
  struct Event {
    double time;
    int delta;
    int kind;
    std::int64_t who;
    bool operator>(const Event& o) const { return time != o.time ? time > o.time : delta < o.delta; }
  };
  // The GPU's kernel: its work left at full speed since `since`.
  struct Kernel {
    bool on = false;
    std::size_t me = 0;
    double start = 0, since = 0, left = 0, slowdown = 1, finish = kInf;
  };
  // Work on the same shared resources progresses at the same rate (max-min gives it equal
  // shares), so each such class keeps one clock: `done`, the work each part in it has done
  // since the class began, at `share` since `since`. A part is done when the clock reaches
  // its target; an instance, once all its parts are, `tail` later.
  struct Flowing {
    double target, start, tail;
    std::size_t me;
    bool operator>(const Flowing& o) const { return target != o.target ? target > o.target : me > o.me; }
  };
  // A collective cut into rounds: those still to run, and when its first began.
  struct Rounds {
    std::uint8_t left = 0;
    double began = 0;
  };
  struct FlowClass {
    std::array<int, 2> res;
    double done = 0, since = 0, share = 0, finish = kInf;
    std::priority_queue<Flowing, std::vector<Flowing>, std::greater<Flowing>> in_flight;
  };

  int class_of(const std::array<int, 2>& res) {
    for (std::size_t c = 0; c < classes_.size(); ++c)
      if (classes_[c].res == res) return int(c);
    classes_.push_back(FlowClass{});
    classes_.back().res = res;
    return int(classes_.size() - 1);
  }

  int next_flow() const {
    int best = -1;
    for (std::size_t c = 0; c < classes_.size(); ++c)
      if (!classes_[c].in_flight.empty() && (best < 0 || classes_[c].finish < classes_[std::size_t(best)].finish))
        best = int(c);
    return best;
  }

  // Every rate from what is in flight from `now` on: the work done since the last change
  // taken off at the old rates, then the kernel's slowdown and the shared resources'
  // max-min fair shares (progressive filling over the classes: the most contended
  // resource first).
  void rerate(double now) {
    rerate_kernel(now);
    std::array<double, kNumRes> cap = capacities();
    for (FlowClass& c : classes_) {
      c.done = c.in_flight.empty() ? 0 : c.done + (now - c.since) * c.share;
      c.since = now;
      c.share = c.in_flight.empty() ? 0 : -1;
    }
    // Where no resource carries two classes (the usual case: each class has its own), a
    // class's share is its bottleneck's capacity over its instances.
    std::array<std::size_t, kNumRes> users{};
    std::array<int, kNumRes> classes{};
    bool disjoint = true;
    for (const FlowClass& c : classes_)
      if (c.share < 0)
        for (int x : c.res)
          if (x >= 0) {
            users[std::size_t(x)] += c.in_flight.size();
            disjoint = disjoint && ++classes[std::size_t(x)] == 1;
          }
    if (disjoint) {
      for (FlowClass& c : classes_)
        if (c.share < 0) {
          c.share = kInf;
          for (int x : c.res)
            if (x >= 0) c.share = std::min(c.share, cap[std::size_t(x)] / double(users[std::size_t(x)]));
        }
    }
    while (!disjoint) {
      users.fill(0);
      for (const FlowClass& c : classes_)
        if (c.share < 0)
          for (int x : c.res)
            if (x >= 0) users[std::size_t(x)] += c.in_flight.size();
      int b = -1;
      double share = kInf;
      for (int x = 0; x < kNumRes; ++x)
        if (users[std::size_t(x)] > 0 && cap[std::size_t(x)] / double(users[std::size_t(x)]) < share) {
          share = cap[std::size_t(x)] / double(users[std::size_t(x)]);
          b = x;
        }
      if (b < 0) break;
      for (FlowClass& c : classes_)
        if (c.share < 0 && (c.res[0] == b || c.res[1] == b)) {
          c.share = share;
          for (int x : c.res)
            if (x >= 0) cap[std::size_t(x)] -= share * double(c.in_flight.size());
        }
    }
    for (FlowClass& c : classes_)
      c.finish = c.in_flight.empty() ? kInf : now + std::max(0.0, c.in_flight.top().target - c.done) / c.share;
  }

  void rerate_kernel(double now) {
    const double ks = comm_ > 0 ? plan_.rates.interference_kernel_slowdown : 1.0;
    if (kernel_.on && ks != kernel_.slowdown) {
      kernel_.left = std::max(0.0, kernel_.left - (now - kernel_.since) / kernel_.slowdown);
      kernel_.since = now;
      kernel_.slowdown = ks;
      kernel_.finish = now + kernel_.left * ks;
    }
  }
  std::array<double, kNumRes> capacities() const {
    std::array<double, kNumRes> cap;
    cap.fill(1.0);
    if (kernels_ > 0) cap[d2d] = 1.0 / plan_.rates.interference_comm_slowdown;
    return cap;
  }
  // One class's share after its own count changed, where no resource carries two classes
  // (nothing else's share moves then).
  void rerate_class(FlowClass& c, double now) {
    if (!disjoint_) return rerate(now);
    c.done += (now - c.since) * c.share;
    c.since = now;
    if (c.in_flight.empty()) {  // its clock starts again from 0: no rounding carried over
      c.done = c.share = 0;
      c.finish = kInf;
      return;
    }
    const std::array<double, kNumRes> cap = capacities();
    c.share = kInf;
    for (int x : c.res)
      if (x >= 0) c.share = std::min(c.share, cap[std::size_t(x)] / double(c.in_flight.size()));
    c.finish = now + std::max(0.0, c.in_flight.top().target - c.done) / c.share;
  }

  void count(int kind, int delta, double now) {
    if (crossed_zero(kind == kComm ? comm_ : kernels_, delta)) rerate(now);
  }

  void event() {
    const Event e = events_.top();
    events_.pop();
    if (e.kind == kNextRound) return next_round(std::size_t(e.who), e.time);
    if (e.who != kNobody) {  // a live communication kernel
      char& st = state_[std::size_t(e.who)];
      if (e.delta > 0) {
        if (st != kRunning) return;  // it ended before its launch did
        st = kCounted;
      } else {
        if (st != kCounted) return;
        st = kDone;
      }
    }
    count(e.kind, e.delta, e.time);
  }

  void pop_ready() {
    const double r = run_.ready.top().ready_s;
    const int t = int(run_.ready.top().key >> 32);
    const std::uint32_t i = std::uint32_t(run_.ready.top().key);
    run_.ready.pop();
    const std::size_t me = run_.s.id(t, i);
    const Task& task = plan_.tasks[i];
    if (task.resource == Resource::gpu) {
      if (kernel_.on || waiting_head_ < waiting_.size()) waiting_.push_back(me);
      else start_kernel(me, r);
      return;
    }
    const auto [dur, hold] = instance_cost(plan_, run_.p, i, run_.inputs[std::size_t(t)]);
    if (hold <= 0 || run_.p.held[i].res[0] < 0) {  // uses nothing (a barrier, latency alone)
      comm_kernel(me, r, r + dur);
      run_.ran(t, i, r, r + dur);
      return;
    }
    if (live_ && runs_comm_kernel(task)) {
      events_.push(Event{r + launch_seconds(plan_.rates, task), +1, kComm, std::int64_t(me)});
      state_[me] = kRunning;
    }
    // Its work: the representative's share on its resources; where a node carries more than
    // the mean, that node's share on its NIC or CPU too, and it ends once both are done and
    // no sooner than it would alone.
    const HotWork* hot = run_.p.hot_node >= 0 ? &run_.p.hot[i] : nullptr;
    const double after = hot ? run_.p.after[i] : dur - hold;
    if (hot) floor_[me] = r + dur;
    if (!rounds_.empty() && run_.p.rounds[i] > 1) {  // its launch, then its first round
      rounds_[me] = Rounds{run_.p.rounds[i], r};
      events_.push(Event{r + launch_seconds(plan_.rates, task), 0, kNextRound, std::int64_t(me)});
      return;
    }
    start_part(me, class_of_task_[i], hold, r, r, after);
    if (hot) {
      start_part(me, hot_class_[0], hot->tx_s, r, r, after);
      start_part(me, hot_class_[1], hot->rx_s, r, r, after);
      start_part(me, hot_class_[2], hot->cpu_fixed_s + hot->cpu_bytes_s * run_.inputs[std::size_t(t)].active_share, r,
                 r, after);
    }
  }

  // A part of instance `me` (which began at `start`) on class k from `now`: `work` at the
  // class's share, then `after`.
  void start_part(std::size_t me, int k, double work, double start, double now, double after) {
    if (work <= 0) return;
    ++parts_[me];
    FlowClass& c = classes_[std::size_t(k)];
    c.done += (now - c.since) * c.share;  // the clock up to now, before its share changes
    c.since = now;
    c.in_flight.push(Flowing{c.done + work, start, after, me});
    rerate_class(c, now);
  }

  // A collective's next round: its share of the work, then of the latency that follows it
  // (all but the launch, paid once before the first).
  void next_round(std::size_t me, double now) {
    const std::size_t i = me % run_.s.n;
    const int rounds = run_.p.rounds[i];
    --rounds_[me].left;
    const double latency = run_.p.dur[i] - run_.p.hold[i] - launch_seconds(plan_.rates, plan_.tasks[i]);
    start_part(me, class_of_task_[i], run_.p.hold[i] / rounds, rounds_[me].began, now, latency / rounds);
  }

  // A communication kernel over [start + launch, end) of an instance that holds nothing.
  void comm_kernel(std::size_t me, double start, double end) {
    if (!live_ || !runs_comm_kernel(plan_.tasks[me % run_.s.n])) return;
    const double begin = std::min(end, start + launch_seconds(plan_.rates, plan_.tasks[me % run_.s.n]));
    if (end <= begin) return;
    events_.push(Event{begin, +1, kComm, kNobody});
    events_.push(Event{end, -1, kComm, kNobody});
  }

  void finish_flow(std::size_t k) {
    FlowClass& c = classes_[k];
    const double now = c.finish;
    const Flowing f = c.in_flight.top();
    c.in_flight.pop();
    rerate_class(c, now);
    if (--parts_[f.me] > 0) return;  // another part still under way
    if (!rounds_.empty() && rounds_[f.me].left > 0) {  // its next round, after this one's latency
      events_.push(Event{now + f.tail, 0, kNextRound, std::int64_t(f.me)});
      return;
    }
    const double end = run_.p.hot_node >= 0 ? std::max(now + f.tail, floor_[f.me]) : now + f.tail;
    // Its communication kernel runs to its end, counted from its launch on.
    if (live_ && (state_[f.me] == kCounted || state_[f.me] == kRunning)) {
      if (state_[f.me] == kCounted || end > f.start + launch_seconds(plan_.rates, plan_.tasks[f.me % run_.s.n]))
        events_.push(Event{end, -1, kComm, std::int64_t(f.me)});
      else
        state_[f.me] = kDone;
    }
    const int t = int(f.me / run_.s.n);
    const std::uint32_t i = std::uint32_t(f.me % run_.s.n);
    run_.ran(t, i, f.start, end);
  }

  void start_kernel(std::size_t me, double now) {
    const int t = int(me / run_.s.n);
    const std::uint32_t i = std::uint32_t(me % run_.s.n);
    InstanceTiming& x = run_.s.path.at(me);
    if (now > x.ready_s) x.queued_behind = last_kernel_;  // it waited behind that one
    kernel_ = Kernel{};
    kernel_.on = true;
    kernel_.me = me;
    kernel_.start = kernel_.since = now;
    kernel_.left = instance_cost(plan_, run_.p, i, run_.inputs[std::size_t(t)]).first;
    kernel_.finish = now + kernel_.left;
    if (live_) count(kKernels, +1, now);
    rerate_kernel(now);
  }

  void finish_kernel() {
    const double end = kernel_.finish;
    kernel_.on = false;
    if (live_) count(kKernels, -1, end);
    const int t = int(kernel_.me / run_.s.n);
    const std::uint32_t i = std::uint32_t(kernel_.me % run_.s.n);
    last_kernel_ = InstanceRef(kernel_.me);
    run_.ran(t, i, kernel_.start, end);
    if (waiting_head_ < waiting_.size()) start_kernel(waiting_[waiting_head_++], end);
  }

  const SyncPlan& plan_;
  ScheduleRun run_;
  const bool replay_;
  const bool live_;          // interference follows what this schedule has in flight
  std::vector<char> state_;  // per instance: a shared one's communication kernel
  std::vector<std::uint8_t> parts_;  // per instance: its parts of work still under way
  std::vector<double> floor_;        // per instance, with a busiest node: its end alone
  std::vector<Rounds> rounds_;       // per instance, where a collective is cut into rounds
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  Kernel kernel_;
  std::vector<std::size_t> waiting_;  // kernels ready while the GPU is busy, in order
  std::size_t waiting_head_ = 0;
  InstanceRef last_kernel_ = InstanceTiming::kNone;  // the GPU's last kernel to end
  std::vector<FlowClass> classes_;
  std::vector<int> class_of_task_;        // per template task: its class, -1 for none
  std::array<int, 3> hot_class_{{-1, -1, -1}};  // the busiest node's NIC tx, rx, CPU
  bool disjoint_ = true;                  // no resource carries two classes
  int comm_ = 0, kernels_ = 0;  // communication kernels / GPU kernels in flight
};

// When a schedule has the worker's communication kernels and GPU kernels in flight.
Interference in_flight(const SyncPlan& plan, const Schedule& s, int k) {
  Interference in;
  for (int t = 0; t < k; ++t)
    for (std::size_t i = 0; i < s.n; ++i) {
      const Task& task = plan.tasks[i];
      const double a = s.start[s.id(t, i)], b = s.finish[s.id(t, i)];
      if (task.resource == Resource::gpu) in.kernels.add(a, b);
      if (runs_comm_kernel(task)) in.comm.add(std::min(b, a + launch_seconds(plan.rates, task)), b);
    }
  in.comm.merge();
  in.kernels.merge();
  return in;
}

}  // namespace

Schedule fluid_schedule(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs) {
  return FluidScheduler(plan, p, inputs, nullptr).run();
}

double fluid_pass_gap(const SyncPlan& plan, const Prepared& p, const std::vector<IterationInput>& inputs,
                      const Schedule& s) {
  const Interference used = in_flight(plan, s, int(inputs.size()));
  const Schedule again = FluidScheduler(plan, p, inputs, &used).run();
  double moved = 0, end = 0;
  for (std::size_t j = 0; j < s.finish.size(); ++j) {
    moved = std::max(moved, std::abs(again.finish[j] - s.finish[j]));
    end = std::max(end, s.finish[j]);
  }
  return end > 0 ? moved / end : 0;
}

}  // namespace possim::analytic
