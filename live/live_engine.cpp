#include "live/live_engine.hpp"

#include <algorithm>
#include <array>
#include <iomanip>
#include <sstream>

#include <unistd.h>

#include "live/arithmetic/node_math.hpp"
#include "live/coordinate.hpp"
#include "model/input/error.hpp"
#include "model/plan/instance_graph.hpp"
#include "model/plan/network_scale.hpp"
#include "model/plan/time_dilation.hpp"
#include "model/run/timeline.hpp"

namespace possim::live {

namespace {

std::string fixed_text(double x) {
  std::ostringstream o;
  o << std::setprecision(3) << x;
  return o.str();
}

// CPU kernels hold host memory, and the nodes on this machine share it: half of it, split
// between them (under mpirun a rank's node has the machine to itself).
void cpu_kernel_memory(LaunchOptions& launch, int nodes_here) {
  if (!launch.kernels.enabled() || launch.kernels.backend != "cpu") return;
  const double ram = double(::sysconf(_SC_PHYS_PAGES)) * double(::sysconf(_SC_PAGE_SIZE));
  launch.kernels.max_bytes = ram / 2 / nodes_here;
}

}  // namespace

void LiveEngine::serve() const {
  if (!opt_.mpi || opt_.mpi->rank == 0) throw std::logic_error("LiveEngine::serve: only mpirun's ranks 1..n-1 serve");
  LaunchOptions launch = opt_.launch;
  // As run() gives a node under mpirun: the machine is its own (no dilation).
  cpu_kernel_memory(launch, 1);
  serve_rank(launch, *opt_.mpi);
}

void LiveEngine::end_run() const {
  if (opt_.mpi && opt_.mpi->rank == 0) end_ranks(opt_.launch, *opt_.mpi);
}

Result LiveEngine::run(const SyncPlan& plan, const RunOptions& ropt) const {
  if (opt_.mpi && opt_.mpi->rank != 0) throw std::logic_error("LiveEngine::run: under mpirun only rank 0 runs plans");
  const int nodes = plan.cluster.total_nodes();
  if (plan.cluster.transport != Transport::tcp)
    throw InputError("cluster.transport", "",
                     std::string("the live backend moves bytes over TCP sockets and cannot run a plan over ") +
                         to_string(plan.cluster.transport),
                     "\"transport\": \"tcp\" with --engine live");
  if (!opt_.mpi && nodes > kMaxLocalNodes)
    throw InputError("cluster", "", std::to_string(nodes) + " nodes is more than a local live run can host",
                     "at most " + std::to_string(kMaxLocalNodes) + " nodes with --engine live");
  if (opt_.launch.arithmetic.enabled()) {
    if (opt_.network_scale != 1)
      throw InputError("live.network_scale", "", "arithmetic compute moves the model's own values, which cannot be scaled",
                       "1 (or \"compute\": \"emulated\")");
    arith::NodeMath check(plan, opt_.launch.arithmetic, 0);  // what it cannot compute, named before any process starts
  }
  const SyncPlan scaled = scale_network(plan, opt_.network_scale);
  // Time dilation: nodes sharing this machine's cores run everything they emulate k times
  // slower, and every time they measure is divided by k (model/plan/time_dilation.hpp).
  // Under mpirun each rank has its own machine: automatic means none.
  // Real kernels take the time they take: kernel compute is never dilated.
  const bool kernels = opt_.launch.kernels.enabled();
  if (kernels && opt_.time_dilation > 1)
    throw InputError("live.time_dilation", "", "real kernels cannot be slowed down", "1 with \"compute\": \"kernels\"");
  const long cores = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
  const double dilation = kernels                  ? 1.0
                          : opt_.time_dilation > 0 ? opt_.time_dilation
                          : opt_.mpi               ? 1.0
                                                   : std::max(1.0, double(nodes) / double(cores));
  const SyncPlan emulated = dilation > 1 ? dilate_time(scaled, dilation) : scaled;
  LaunchOptions launch = opt_.launch;
  launch.queue_ms *= dilation;  // the same switch buffer in bytes, at a k times slower rate
  launch.stall_timeout_s *= dilation;  // a phase without messages lasts k times longer
  // Preparing real kernels (cuDNN's algorithm search per layer) is quiet for tens of seconds.
  launch.prepare_timeout_s = kernels ? std::max(launch.stall_timeout_s, 600.0) : launch.stall_timeout_s;
  cpu_kernel_memory(launch, opt_.mpi ? 1 : nodes);
  if (dilation > 1 && launch.progress)
    launch.progress("time dilated " + fixed_text(dilation) + "x: " + std::to_string(nodes) + " nodes on " +
                    std::to_string(cores) + " cores; measured times divided by " + fixed_text(dilation));
  // Measured here (reports/validation/): 0.5 Gbit/s links carry their rate to within a few
  // percent with 8 nodes on 2 cores; faster ones are the machine's limit, not the model's.
  const double link_gbps = scaled.line_rate_gbps();
  if (opt_.launch.netns && nodes > 1 && link_gbps > 1 && opt_.launch.progress)
    opt_.launch.progress("warning: links shaped to " + std::to_string(link_gbps) +
                         " Gbit/s may be more than this machine carries; a scenario's \"live\": "
                         "{\"network_scale\": K} divides rates and bytes by K");
  LiveRun run;
  try {
    run = opt_.mpi ? run_rank(emulated, launch, *opt_.mpi) : run_local(emulated, launch);
  } catch (const LiveFailure& f) {
    if (f.completed_end_s.empty()) throw std::runtime_error(f.what());
    // What the completed iterations measured is kept, marked: their ends as the coordinator
    // saw them (the records with the breakdown, bytes and trace died with the run).
    std::vector<double> completed = f.completed_end_s;
    for (double& e : completed) e /= dilation;
    Result r = begin_result(plan, "live", completed);
    r.failure = f.what();
    r.failure += " (kept: the " + std::to_string(f.completed_end_s.size()) + " iterations every node completed)";
    return r;
  }
  const InstanceGraph graph(scaled);
  const int k = graph.iterations();
  std::vector<Instance> of(graph.size());
  for (int t = 0; t < k; ++t)
    for (std::uint32_t task = 0; task < scaled.tasks.size(); ++task)
      for (int who = 0; who < graph.instances_of(task); ++who) of[graph.index(Instance{t, task, who})] = Instance{t, task, who};

  // Every instance's record, from the node that ran it (cluster replicas: node 0's).
  std::vector<char> seen(graph.size(), 0);
  std::vector<double> start(graph.size(), 0), end(graph.size(), 0);
  CriticalPath path(scaled, graph.size(), k);
  std::vector<double> ends(std::size_t(k), 0);
  // An instance a record names as what held it back: -1 (none) or one of the run's.
  const auto ref = [&](const nlohmann::json& v, std::size_t i) {
    const std::int64_t x = v.get<std::int64_t>();
    if (x < -1 || x >= std::int64_t(graph.size()))
      throw std::runtime_error("live run: a node's record of task instance " + std::to_string(i) + " names instance " +
                               std::to_string(x) + ", outside the run's " + std::to_string(graph.size()));
    return InstanceRef(x);
  };
  for (const auto& rep : run.reports)
    for (const auto& r : rep.at("records")) {
      const std::size_t i = r.at(0).get<std::size_t>();
      if (i >= graph.size() || seen[i]) continue;
      seen[i] = 1;
      InstanceTiming& x = path.at(i);
      x.ready_s = (r.at(1).get<double>() - run.go_s) / dilation;
      x.start_s = start[i] = (r.at(2).get<double>() - run.go_s) / dilation;
      end[i] = (r.at(3).get<double>() - run.go_s) / dilation;
      x.released_by = ref(r.at(4), i);
      x.queued_behind = ref(r.at(5), i);
      x.task = of[i].task;
      x.slowdown = r.at(6).get<float>();
      path.finished(i, of[i].t, end[i]);
      ends[std::size_t(of[i].t)] = std::max(ends[std::size_t(of[i].t)], end[i]);
    }
  const std::size_t missing = std::size_t(std::count(seen.begin(), seen.end(), 0));
  if (missing > 0)
    throw std::runtime_error("live run: " + std::to_string(missing) + " task instances reported no timing");
  std::vector<std::array<double, 3>> busy;
  for (const auto& b : run.reports.front().at("gpu0_busy"))
    busy.push_back({b.at(0).get<double>(), (b.at(1).get<double>() - run.go_s) / dilation,
                    (b.at(2).get<double>() - run.go_s) / dilation});
  std::sort(busy.begin(), busy.end(), [](const auto& a, const auto& b) { return a[1] < b[1]; });
  double busy_s = 0;
  for (const auto& b : busy) {
    path.gpu_busy(std::size_t(b[0]), b[1], b[2]);
    busy_s += b[2] - b[1];
  }

  // Each iteration ends when its last instance does (under SSP one may end before the one
  // before it), as in the other engines and in the time breakdown.
  Result r = begin_result(plan, "live", ends);
  r.simulated_iterations = k;
  r.gpu_busy_s = busy_s / k;  // worker 0's leader GPU
  r.gpu_stall_s = std::max(0.0, r.iteration_s - r.gpu_busy_s);
  fill_layer_rows(plan, r, [&](std::size_t task) {
    const std::size_t i = graph.index(Instance{k - 1, std::uint32_t(task), 0});
    return std::make_pair(start[i], end[i]);
  });
  std::vector<int> source;
  for (int t = 0; t < k; ++t) source.push_back(t);
  fill_breakdown(scaled, path, source, r);

  // Bytes each node's sockets carried, per iteration of the frames, at the scenario's scale.
  double sent_sum = 0, received_sum = 0;
  const double run_s = ends.back();
  for (int n = 0; n < nodes; ++n) {
    const auto& rep = run.counters[std::size_t(n)];
    double s = 0, rcv = 0;
    for (const auto& v : rep.at("sent")) s += v.get<double>();
    for (const auto& v : rep.at("received")) rcv += v.get<double>();
    s *= opt_.network_scale / k;
    rcv *= opt_.network_scale / k;
    r.sent_bytes_max = std::max(r.sent_bytes_max, s);
    r.received_bytes_max = std::max(r.received_bytes_max, rcv);
    sent_sum += s;
    received_sum += rcv;
    const double capacity = run.link_rate_gbit * 1e9 / 8 * opt_.network_scale * dilation;  // scenario bytes/s
    for (int dir = 0; dir < 2; ++dir) {
      LinkUse u;
      u.link = "nic-" + std::to_string(n) + (dir == 0 ? " tx" : " rx");
      u.bytes_per_iteration = dir == 0 ? s : rcv;
      u.mean_utilization = capacity > 0 && run_s > 0 ? u.bytes_per_iteration * k / (run_s * capacity) : 0;
      r.links.push_back(u);
    }
    if (std::size_t(n) < run.wire_bytes.size())  // the kernel's count, beside possim's
      for (int dir = 0; dir < 2; ++dir) {
        LinkUse u;
        u.link = "nic-" + std::to_string(n) + (dir == 0 ? " tx" : " rx") + " (kernel)";
        const auto& w = run.wire_bytes[std::size_t(n)];
        u.bytes_per_iteration = (dir == 0 ? w.first : w.second) * opt_.network_scale / k;
        u.mean_utilization = capacity > 0 && run_s > 0 ? u.bytes_per_iteration * k / (run_s * capacity) : 0;
        r.links.push_back(u);
      }
  }
  r.sent_bytes_mean = sent_sum / nodes;

  // Arithmetic compute: the loss of the global batch, and whether the replicas agree.
  if (opt_.launch.arithmetic.enabled()) {
    r.training_loss.assign(std::size_t(k), 0.0);
    for (int w = 0; w < plan.workers; ++w) {
      const auto& rep = run.reports[std::size_t(w)];
      const auto loss = rep.at("loss").get<std::vector<double>>();
      for (std::size_t t = 0; t < loss.size() && t < r.training_loss.size(); ++t) r.training_loss[t] += loss[t] / plan.workers;
      if (rep.at("params") != run.reports.front().at("params")) r.replicas_agree = false;
    }
  }
  r.received_bytes_mean = received_sum / nodes;

  // The timeline as SimGrid's (model/run/timeline.hpp), from when each instance ran here.
  Timeline timeline(plan, ropt);
  if (timeline.on())
    for (std::size_t i = 0; i < graph.size(); ++i) timeline.instance(of[i], start[i], std::max(start[i], end[i]));
  r.timeline = timeline.events();
  return r;
}

}  // namespace possim::live
