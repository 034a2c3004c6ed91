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
      core_(plan, *this),
      // Repeats need inputs that do not vary by iteration (stragglers drawn per iteration).
      repeats_(core_.graph().iterations(), core_.graph().per_iteration(),
               sim.reuse_repeating_iterations &&
                   std::all_of(plan.stragglers.slowdown.begin(), plan.stragglers.slowdown.end(),
                               [&](const auto& row) { return row == plan.stragglers.slowdown[0]; }) &&
                   std::all_of(plan.stragglers.dropped.begin(), plan.stragglers.dropped.end(),
                               [&](const auto& row) { return row == plan.stragglers.dropped[0]; })),
      recorder_(plan, platform, opt) {
  gpus_ = std::max(1, plan.cluster.gpus_per_node);
  nodes_ = std::size_t(plan.cluster.total_nodes());
  if (fold_.on()) {
    fold_sent_.assign(nodes_ * std::size_t(graph().iterations()), 0);
    fold_received_ = fold_sent_;
  }
  if (fold_.by_classes()) {
    recorder_.timeline().show_workers_as(fold_.classes->rep, fold_.workers());
    recorder_.average_gpus_over(fold_.workers());  // each worker's busy time weighed by its class
  }
}

// Drains end on a stop token once every task instance has completed: killing one
// blocked in get() at the end of the run would cancel a comm that has no route.
void Executor::start_drains() {
  if (sim_.network != NetworkBackend::lmm) return;  // possim's star solver takes no mailbox
  for (sg4::Host* h : platform_.node) {
    sg4::Mailbox* mb = sg4::Mailbox::by_name("in-" + h->get_name());
    inbox_.push_back(mb);
    sg4::ActorPtr drain = sg4::Actor::create("drain-" + h->get_name(), h, [mb] {
      while (mb->get<int>() != &kStop) {
      }
      mb->set_receiver(nullptr);
    });
    mb->set_receiver(drain);
  }
}

void Executor::start() {
  for (std::size_t stream = 0; stream < std::size_t(plan_.workers * gpus_); ++stream) {
    gpu_queue_.emplace_back();
    gpu_wake_.push_back(sg4::ConditionVariable::create());
    gpu_mutex_.push_back(sg4::Mutex::create());
    gpu_last_.push_back(InstanceTiming::kNone);
  }
  comm_kernels_.assign(std::size_t(plan_.workers), 0);
  kernels_running_.assign(std::size_t(plan_.workers), 0);
  start_drains();
  network_ = make_nic_network(sim_.network, platform_, inbox_);
  if (sim_.network == NetworkBackend::star) pcie_ = make_pcie_network(platform_);
  delays_ = std::make_unique<Delays>(platform_.ctl[0], "delays", [this](bool begin) {
    if (begin) network_->hold();
    else network_->release();
  });
  // One engine per process (a child of SimGridEngine::run): the signal outlives no run.
  sg4::Engine::on_time_advance_cb([this](double delta_s) {
    if (!pcie_) recorder_.sample_link_loads(delta_s);  // else the PCIe star keeps its links' peaks
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
  if (progress_) progress_->instances_total = graph().size();
  for (int w = 0; w < plan_.workers; ++w)
    for (int g = 0; g < gpus_; ++g) {
      sg4::Host* host = g == 0 ? platform_.gpu[std::size_t(w)] : platform_.follower[std::size_t(w)][std::size_t(g - 1)];
      sg4::Actor::create(host->get_name(), host, [this, w, g] { run_gpu(w, g); });
    }
  // Launch what needs nothing, from an actor (activities start only from actors).
  // The ready set is taken before any launch: a launch can yield to other actors, which
  // may bring more instances to zero pending and launch those themselves.
  sg4::Actor::create("start", platform_.node[0], [this] { core_.start(); });
}

bool Executor::admit(const Instance& in) {
  if (repeats_.skipped(in.t)) return false;  // reported from the repeated iteration
  repeats_.launched(in.t, offset(in), now());
  return true;
}

// The plan's resources bound to SimGrid's activities.
void Executor::occupy(ExecutorCore&, const Instance& in) {
  switch (plan_.tasks[in.task].resource) {
    case Resource::gpu: enqueue_gpu(in); return;
    case Resource::pcie_d2h:
    case Resource::pcie_h2d: launch_copy(in); return;
    case Resource::intra_node:
    case Resource::server_cpu:
    case Resource::host_cpu: launch_host_exec(in); return;
    case Resource::none: launch_barrier(in); return;
    case Resource::network: break;
  }
  transfer(core_, in);
}

void Executor::transfer(ExecutorCore&, const Instance& in) {
  if (plan_.tasks[in.task].pattern == FlowPattern::collective) launch_collective(in);
  else run_flows(in);
}

// A barrier is done once its deps are, on every worker, plus its fixed round (a stack's
// step synchronisation), if any.
void Executor::launch_barrier(const Instance& in) {
  const double round_s = plan_.tasks[in.task].duration_s;
  if (round_s <= 0) {
    complete(in);
    return;
  }
  sg4::Actor::create(plan_.tasks[in.task].display_label(), platform_.node[0], [this, in, round_s] {
    const double t0 = now();
    sg4::this_actor::sleep_for(round_s);
    recorder_.timeline().instance(in, t0, now());
    complete(in);
  });
}

bool Executor::completed(const Instance& in, double at_s) {
  if (progress_) progress_->instances_done.fetch_add(1, std::memory_order_relaxed);
  if (repeats_.completed(in.t, offset(in), at_s)) repeats_.end_iteration(in.t);
  // After a repeat is found, what was already under way finishes and releases nothing.
  if (graph().remaining() == 0 || (repeats_.steady() >= 0 && core_.in_flight() == 0)) stop_drains();
  return !repeats_.skipped(in.t);
}

void Executor::fault(const std::string& what) {
  std::fprintf(stderr, "possim: simgrid engine: %s\n", what.c_str());
  std::abort();  // a bug in the engine: the run's numbers cannot be trusted
}

// Statistics of one network flow of the instance that has just landed.
void Executor::flow_landed(const Instance& in, const HostFlow& f) {
  repeats_.flow_landed(in.t, now());
  recorder_.flow_landed(in.t, f.src_node, f.dst_node, f.bytes, f.m, f.flows);
  if (fold_.on()) {
    const std::size_t row = std::size_t(in.t) * nodes_;
    fold_sent_[row + std::size_t(f.src_node)] += f.bytes * f.m.tx;
    fold_received_[row + std::size_t(f.dst_node)] += f.bytes * f.m.rx;
  }
}

void Executor::deliver_all(const Instance& in) {
  const auto& slices = plan_.tensors[std::size_t(plan_.tasks[in.task].tensor)].slices;
  for (std::size_t i = 0; i < slices.size(); ++i)
    core_.delivered(in, slices[i].shard, int(i));
}

// Worker 0 stands for every worker node, each dedicated server's flows for N flows each;
// the links of every worker node are node 0's (and PCIe worker 0's). By classes, each
// node's are its class representative's.
void Executor::unfold(Result& r) const {
  const int k = graph().iterations(), n = full().workers;
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
    const double times = server && !fold_.by_classes() ? n : 1;
    // By classes, every node's figures are its representative's (m flows counted in).
    const std::size_t from = fold_.by_classes() ? std::size_t(fold_.node(int(node))) : server ? node : 0;
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
      const std::size_t simulated = fold_.by_classes() ? std::size_t(fold_.classes->class_of[std::size_t(w)]) : 0;
      LinkUse u = r.links[2 * (nodes + simulated) + std::size_t(dir)];
      u.link = "pcie-" + std::to_string(w) + (dir == 0 ? " d2h" : " h2d");
      links.push_back(u);
    }
  r.links = std::move(links);
  r.sent_bytes_mean = sent_sum / double(nodes);
  r.received_bytes_mean = received_sum / double(nodes);
  if (fold_.by_classes()) {
    r.reduced_to_nodes = fold_.classes->count();  // the recorder counted every flow a flow stands for
    return;
  }
  r.flows_per_iteration *= n;  // every flow of the cluster is some worker's, as worker 0's
  r.reduced_to_nodes = fold_.dedicated() ? 1 + full().num_shards() : 1;
}

void Executor::stop_drains() {
  if (stopped_) return;
  stopped_ = true;
  network_->stop();
  if (pcie_) pcie_->stop();
  delays_->stop();
  for (std::size_t i = 0; i < inbox_.size(); ++i) {
    sg4::Mailbox* mb = inbox_[i];
    sg4::Actor::create("stop", platform_.node[i], [mb] { mb->put(&kStop, 0); });
  }
}

Result Executor::result() const {
  // Iterations 0..simulated-1 ran; any later one repeats iteration steady, shifted.
  const int k = graph().iterations(), steady = repeats_.steady();
  if (steady < 0 && graph().remaining() != 0)
    throw std::logic_error("plan '" + plan_.strategy + "': " + std::to_string(graph().remaining()) +
                           " task instances never ran (their dependencies were never met)");
  std::vector<double> ends;
  for (int t = 0; t < k; ++t) ends.push_back(repeats_.iteration_end(repeats_.source(t)) + repeats_.shift(t));
  Result r = begin_result(full(), "simgrid", std::move(ends));
  r.simulated_iterations = steady >= 0 ? steady + 1 : k;
  recorder_.fill(r, repeats_, graph(), *network_, pcie_.get());
  // The breakdown is worker 0's view, which a folded run simulates in full.
  std::vector<int> source;
  for (int t = 0; t < k; ++t) source.push_back(repeats_.source(t));
  fill_breakdown(plan_, core_.path(), source, r);
  if (fold_.on()) unfold(r);
  return r;
}

}  // namespace possim::sim
