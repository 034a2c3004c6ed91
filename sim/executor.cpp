#include "sim/executor.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace sg4 = simgrid::s4u;

namespace possim::sim {

namespace {
int kStop = 0;  // tells a drain actor that nothing more will arrive
}  // namespace

Executor::Executor(const SyncPlan& plan, const RunOptions& opt, const SimGridOptions& sim,
                   const Platform& platform, Fold fold)
    : plan_(plan),
      opt_(opt),
      sim_(sim),
      platform_(platform),
      fold_(fold),
      graph_(plan),
      // Repeats need inputs that do not vary by iteration (stragglers drawn per iteration).
      repeats_(graph_.iterations(), graph_.per_iteration(),
               sim.reuse_repeating_iterations &&
                   std::all_of(plan.stragglers.slowdown.begin(), plan.stragglers.slowdown.end(),
                               [&](const auto& row) { return row == plan.stragglers.slowdown[0]; }) &&
                   std::all_of(plan.stragglers.dropped.begin(), plan.stragglers.dropped.end(),
                               [&](const auto& row) { return row == plan.stragglers.dropped[0]; })),
      recorder_(plan, platform, opt),
      path_(plan, graph_.size(), graph_.iterations()) {
  gpus_ = std::max(1, plan.cluster.gpus_per_node);
  left_.assign(graph_.size(), 0);
  nodes_ = std::size_t(plan.cluster.total_nodes());
  if (fold_.on()) {
    fold_sent_.assign(nodes_ * std::size_t(graph_.iterations()), 0);
    fold_received_ = fold_sent_;
  }
}

// Drains end on a stop token once every task instance has completed: killing one
// blocked in get() at the end of the run would cancel a comm that has no route.
void Executor::start_drains() {
  std::vector<sg4::Host*> hosts = platform_.node;
  hosts.insert(hosts.end(), platform_.gpu.begin(), platform_.gpu.end());
  hosts.insert(hosts.end(), platform_.mem.begin(), platform_.mem.end());
  for (sg4::Host* h : hosts) {
    sg4::Mailbox* mb = sg4::Mailbox::by_name("in-" + h->get_name());
    inbox_.push_back(mb);
    sg4::ActorPtr drain = sg4::Actor::create("drain-" + h->get_name(), h, [mb] {
      while (mb->get<int>() != &kStop) {
      }
      mb->set_receiver(nullptr);
    });
    mb->set_receiver(drain);
    drain_host_.push_back(h);
  }
}

void Executor::start() {
  for (std::size_t stream = 0; stream < std::size_t(plan_.workers * gpus_); ++stream) {
    gpu_queue_.emplace_back();
    gpu_wake_.push_back(sg4::ConditionVariable::create());
    gpu_mutex_.push_back(sg4::Mutex::create());
    gpu_last_.push_back(InstanceTiming::kNone);
  }
  start_drains();
  network_ = make_nic_network(sim_.network, platform_,
                              std::vector<sg4::Mailbox*>(inbox_.begin(), inbox_.begin() + long(nodes_)));
  // One engine per process (a child of SimGridEngine::run): the signal outlives no run.
  sg4::Engine::on_time_advance_cb([this](double delta_s) {
    recorder_.sample_link_loads(delta_s);
    if (progress_ && progress_->time_advances.fetch_add(1, std::memory_order_relaxed) + 1 > progress_->step_budget) {
      std::fprintf(stderr,
                   "possim: simgrid engine: %s at %d nodes stopped after %llu clock steps at %.9g simulated s, "
                   "over its budget of %llu (%llu per task instance and flow it plans): a bug, or a rate a double "
                   "cannot resolve\n",
                   plan_.strategy.c_str(), plan_.cluster.nodes, (unsigned long long)progress_->time_advances.load(),
                   now(), (unsigned long long)progress_->step_budget, (unsigned long long)SimProgress::kStepsPerEvent);
      std::fflush(stderr);
      std::_Exit(4);  // the forked child: its parent reports the point as failed
    }
  });
  if (progress_) progress_->instances_total = graph_.size();
  for (int w = 0; w < plan_.workers; ++w)
    for (int g = 0; g < gpus_; ++g) {
      sg4::Host* host = g == 0 ? platform_.gpu[std::size_t(w)] : platform_.follower[std::size_t(w)][std::size_t(g - 1)];
      sg4::Actor::create(host->get_name(), host, [this, w, g] { run_gpu(w, g); });
    }
  // Launch what needs nothing, from an actor (activities start only from actors).
  // The ready set is taken before any launch: a launch can yield to other actors, which
  // may bring more instances to zero pending and launch those themselves.
  sg4::Actor::create("start", platform_.node[0], [this, ready = graph_.initially_ready()] {
    for (const Instance& in : ready) launch(in);
  });
}

void Executor::launch(const Instance& in) {
  if (repeats_.skipped(in.t)) return;  // reported from the repeated iteration
  repeats_.launched(in.t, offset(in), now());
  ++in_flight_;
  // Ready now, and started now unless a GPU stream queues it (gpu_stream.cpp).
  InstanceTiming& x = path_.at(id(in));
  x.ready_s = x.start_s = now();
  x.task = in.task;
  x.released_by = graph_.released_by(id(in));
  switch (plan_.tasks[in.task].resource) {
    case Resource::gpu: enqueue_gpu(in); return;
    case Resource::pcie_d2h:
    case Resource::pcie_h2d: launch_copy(in); return;
    case Resource::intra_node:
    case Resource::server_cpu: launch_host_exec(in); return;
    case Resource::network:
      if (plan_.tasks[in.task].pattern == FlowPattern::collective) launch_collective(in);
      else run_flows(in);
      return;
    case Resource::none: launch_barrier(in); return;
  }
}

// A barrier is done once its deps are, on every worker, plus its fixed round (a stack's
// step synchronisation), if any.
void Executor::launch_barrier(const Instance& in) {
  const double round_s = plan_.tasks[in.task].duration_s;
  if (round_s <= 0) {
    complete(in);
    return;
  }
  sg4::Actor::create(plan_.tasks[in.task].label, platform_.node[0], [this, in, round_s] {
    const double t0 = now();
    sg4::this_actor::sleep_for(round_s);
    recorder_.task(in, info(Resource::none).track, t0, now());
    complete(in);
  });
}

void Executor::complete(const Instance& in) {
  try {
    graph_.mark_complete(in);
  } catch (const std::logic_error& e) {
    std::fprintf(stderr, "possim: simgrid engine: %s\n", e.what());
    std::abort();  // a bug in the engine: the run's numbers cannot be trusted
  }
  --in_flight_;
  if (progress_) progress_->instances_done.fetch_add(1, std::memory_order_relaxed);
  path_.finished(id(in), in.t, now());
  if (repeats_.completed(in.t, offset(in), now())) repeats_.end_iteration(in.t);
  // After a repeat is found, what was already under way finishes and releases nothing.
  if (graph_.remaining() == 0 || (repeats_.steady() >= 0 && in_flight_ == 0)) stop_drains();
  if (repeats_.skipped(in.t)) return;
  graph_.release_dependents(in, [this](const Instance& ready) { launch(ready); });
}

// Statistics of one network flow of the instance that has just landed.
void Executor::flow_landed(const Instance& in, int src_node, int dst_node, double bytes) {
  repeats_.flow_landed(in.t, now());
  recorder_.flow_landed(in.t, src_node, dst_node, bytes);
  if (fold_.on()) {
    const std::size_t row = std::size_t(in.t) * nodes_;
    fold_sent_[row + std::size_t(src_node)] += bytes;
    fold_received_[row + std::size_t(dst_node)] += bytes;
  }
}

void Executor::deliver_all(const Instance& in) {
  const auto& slices = plan_.tensors[std::size_t(plan_.tasks[in.task].tensor)].slices;
  for (std::size_t i = 0; i < slices.size(); ++i)
    graph_.delivered(in, slices[i].shard, int(i), [this](const Instance& r) { launch(r); });
}

// Worker 0 stands for every worker node, each dedicated server's flows for N flows each;
// the links of every worker node are node 0's (and PCIe worker 0's).
void Executor::unfold(Result& r) const {
  const int k = graph_.iterations(), n = full().workers;
  const std::size_t nodes = nodes_;
  const auto mean = [&](const std::vector<double>& v, std::size_t node) {
    double sum = 0;
    for (int t = 0; t < k; ++t) sum += v[std::size_t(repeats_.source(t)) * nodes + node];
    return sum / k;
  };
  double sent_sum = 0, received_sum = 0;
  r.sent_bytes_max = r.received_bytes_max = 0;
  std::vector<LinkUse> links;
  for (std::size_t node = 0; node < nodes; ++node) {
    const bool server = int(node) >= n;  // dedicated
    const double times = server ? n : 1;
    const std::size_t from = server ? node : 0;
    const double s = times * mean(fold_sent_, from), rcv = times * mean(fold_received_, from);
    r.sent_bytes_max = std::max(r.sent_bytes_max, s);
    r.received_bytes_max = std::max(r.received_bytes_max, rcv);
    sent_sum += s;
    received_sum += rcv;
    for (int dir = 0; dir < 2; ++dir) {
      LinkUse u = r.links[2 * from + std::size_t(dir)];
      u.link = "nic-" + std::to_string(node) + (dir == 0 ? " tx" : " rx");
      u.bytes_per_iteration *= times;  // utilization: of a link of 1/N the capacity, the same
      links.push_back(u);
    }
  }
  for (int w = 0; w < n; ++w)
    for (int dir = 0; dir < 2; ++dir) {
      LinkUse u = r.links[2 * nodes + std::size_t(dir)];
      u.link = "pcie-" + std::to_string(w) + (dir == 0 ? " d2h" : " h2d");
      links.push_back(u);
    }
  r.links = std::move(links);
  r.sent_bytes_mean = sent_sum / double(nodes);
  r.received_bytes_mean = received_sum / double(nodes);
  r.flows_per_iteration *= n;  // every flow of the cluster is some worker's, as worker 0's
  r.reduced_to_nodes = fold_.dedicated() ? 1 + full().num_shards() : 1;
}

void Executor::stop_drains() {
  if (stopped_) return;
  stopped_ = true;
  network_->stop();
  for (std::size_t i = 0; i < inbox_.size(); ++i) {
    sg4::Mailbox* mb = inbox_[i];
    sg4::Actor::create("stop", drain_host_[i], [mb] { mb->put(&kStop, 0); });
  }
}

Result Executor::result() const {
  // Iterations 0..simulated-1 ran; any later one repeats iteration steady, shifted.
  const int k = graph_.iterations(), steady = repeats_.steady();
  if (steady < 0 && graph_.remaining() != 0)
    throw std::logic_error("plan '" + plan_.strategy + "': " + std::to_string(graph_.remaining()) +
                           " task instances never ran (their dependencies were never met)");
  std::vector<double> ends;
  for (int t = 0; t < k; ++t) ends.push_back(repeats_.iteration_end(repeats_.source(t)) + repeats_.shift(t));
  Result r = begin_result(full(), "simgrid", std::move(ends));
  r.simulated_iterations = steady >= 0 ? steady + 1 : k;
  recorder_.fill(r, repeats_, graph_, *network_);
  // The breakdown is worker 0's view, which a folded run simulates in full.
  std::vector<int> source;
  for (int t = 0; t < k; ++t) source.push_back(repeats_.source(t));
  fill_breakdown(plan_, path_, source, r);
  if (fold_.on()) unfold(r);
  return r;
}

}  // namespace possim::sim
