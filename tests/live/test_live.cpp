// The live engine (live/): scaling a plan's network keeps every engine's prediction; the
// emulated resources keep the simulator's time; every strategy runs for real and moves
// exactly the bytes the plan says; a node that dies ends the run at once, naming it, and
// nothing (process, namespace) is left behind.
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/fixtures.hpp"
#include "model/run/breakdown.hpp"
#include "live/emulated.hpp"
#include "live/launch_mpi.hpp"
#include "live/live_engine.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/plan/network_scale.hpp"
#include "model/run/plan_json.hpp"
#include "model/plan/time_dilation.hpp"
#include "net/netns.hpp"
#include "support/processes.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;
using namespace possim::test;
namespace fs = std::filesystem;
using Approx = Catch::Detail::Approx;

namespace {

// Namespaces this machine holds that possim made (psm<pid>-...).
std::set<std::string> possim_namespaces() {
  std::set<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/var/run/netns", ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("psm", 0) == 0) out.insert(n);
  }
  return out;
}

bool can_make_namespaces() {
  try {
    net::NetnsOptions o;
    o.nodes = 2;
    net::NetnsCluster c(o);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// A live run of `scenario` started by possim in its own process group in a fresh `dir`
// (stderr in err.txt), once its stderr holds `mark` after "N node processes connected"
// (as the coordinator reports it); REQUIREs that within 60 s.
struct LiveProcess {
  fs::path dir;
  pid_t pid = -1;
};
LiveProcess start_live_run(const std::string& tag, const std::string& scenario, int nodes, const std::string& mark) {
  LiveProcess r;
  r.dir = fs::temp_directory_path() / ("possim_live_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(r.dir);
  fs::create_directories(r.dir);
  std::ofstream(r.dir / "s.json") << scenario;
  r.pid = start_possim(r.dir, {"run", "s.json", "--engine", "live", "--out", "out"});
  const std::string connected = std::to_string(nodes) + " node processes connected";
  const auto under_way = [&](const std::string& err) {
    const auto at = err.find(connected);
    return at != std::string::npos && err.find(mark, at) != std::string::npos;
  };
  const auto t0 = std::chrono::steady_clock::now();
  std::string err;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60) && !under_way(err)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    err = slurp(r.dir / "err.txt");
  }
  INFO(err);
  REQUIRE(under_way(err));
  return r;
}

}  // namespace

TEST_CASE("a plan's network scaled down by k: both engines predict the same iteration", "[live]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const auto& s : strategy_names())
    for (double gbps : {1.0, 40.0}) {
      const SyncPlan plan = make_plan(s, request(net, prof, 3, gbps, 32, 3));
      for (double k : {10.0, 100.0}) {
        const SyncPlan scaled = scale_network(plan, k);
        INFO(s << " at " << gbps << " Gbit/s, scaled by " << k);
        CHECK(scaled.network_scale == k);
        CHECK(scaled.nic_bytes_per_s() == Approx(plan.nic_bytes_per_s() / k).epsilon(1e-12));
        const Result a = AnalyticEngine().run(plan, {}), as = AnalyticEngine().run(scaled, {});
        CHECK(as.iteration_s == Approx(a.iteration_s).epsilon(1e-9));
        const Result g = sim::SimGridEngine().run(plan, {}), gs = sim::SimGridEngine().run(scaled, {});
        // SimGrid moves whole bytes (wire_bytes) and solves sharing to 1e-5: close, not equal.
        CHECK(gs.iteration_s == Approx(g.iteration_s).epsilon(1e-4));
        CHECK(gs.sent_bytes_max * k == Approx(g.sent_bytes_max).epsilon(1e-9));
      }
    }
  CHECK_THROWS(scale_network(SyncPlan{}, 0.5));
}

TEST_CASE("a plan dilated in time by k, per-message cost included: both engines predict k times the iteration",
          "[live]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const auto& s : strategy_names())
    for (double gbps : {1.0, 40.0}) {
      const SyncPlan plan = make_plan(s, request(net, prof, 3, gbps, 32, 3));
      for (double k : {2.0, 4.0}) {
        SyncPlan dilated = dilate_time(plan, k);
        INFO(s << " at " << gbps << " Gbit/s, dilated by " << k);
        CHECK(dilated.rates.per_message_s == plan.rates.per_message_s);  // the CPU's own work: real, not emulated
        dilated.rates.per_message_s *= k;  // a CPU k times slower as well: everything is k times slower
        const Result a = AnalyticEngine().run(plan, {}), ad = AnalyticEngine().run(dilated, {});
        CHECK(ad.iteration_s == Approx(k * a.iteration_s).epsilon(1e-9));
        const Result g = sim::SimGridEngine().run(plan, {}), gd = sim::SimGridEngine().run(dilated, {});
        CHECK(gd.iteration_s == Approx(k * g.iteration_s).epsilon(1e-4));
        CHECK(gd.sent_bytes_max == Approx(g.sent_bytes_max).epsilon(1e-12));
      }
    }
  CHECK_THROWS(dilate_time(SyncPlan{}, 0.5));
}

TEST_CASE("emulated resources keep the simulator's time: processor sharing and FIFO", "[live]") {
  using live::EmulatedResource;
  // Two jobs of 1 and 2 units at 10 units/s, together: shared, the first is done at 0.2 s
  // (5 units/s each), the second at 0.3 s; FIFO, at 0.1 s and 0.3 s. A job delayed by
  // 0.05 s starts then.
  for (auto d : {EmulatedResource::Discipline::sharing, EmulatedResource::Discipline::fifo}) {
    const bool fifo = d == EmulatedResource::Discipline::fifo;
    std::mutex mu;
    std::vector<std::pair<double, double>> done(3, {-1, -1});
    const double t0 = live::now_s();
    {
      EmulatedResource r("test", 10.0, d);
      r.submit(1.0, 0, -1, [&](double s, double e) { std::lock_guard<std::mutex> l(mu); done[0] = {s - t0, e - t0}; });
      r.submit(2.0, 0, -1, [&](double s, double e) { std::lock_guard<std::mutex> l(mu); done[1] = {s - t0, e - t0}; });
      std::this_thread::sleep_for(std::chrono::milliseconds(450));
      r.submit(0.5, 0.05, -1, [&](double s, double e) { std::lock_guard<std::mutex> l(mu); done[2] = {s, e}; });
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    INFO((fifo ? "fifo" : "sharing") << ": ends " << done[0].second << ", " << done[1].second);
    // Timers on a shared machine are late, never early: a bound below, slack above.
    CHECK(done[0].second >= (fifo ? 0.1 : 0.2) - 1e-3);
    CHECK(done[0].second <= (fifo ? 0.1 : 0.2) + 0.03);
    CHECK(done[1].second >= 0.3 - 1e-3);
    CHECK(done[1].second <= 0.3 + 0.03);
    CHECK(done[2].second - done[2].first >= 0.05 - 1e-3);
    CHECK(done[2].second - done[2].first <= 0.05 + 0.03);
  }
  // A FIFO job ready 0.05 s ago (a kernel queued behind one that was due then) runs from
  // then: 1 unit at 10/s ends 0.05 s from now, not 0.1.
  std::mutex mu;
  double start = -1, end = -1;
  const double now = live::now_s();
  {
    EmulatedResource r("back-dated", 10.0, EmulatedResource::Discipline::fifo);
    r.submit(1.0, 0, now - 0.05, [&](double s, double e) {
      std::lock_guard<std::mutex> l(mu);
      start = s - now;
      end = e - now;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  CHECK(start == Approx(-0.05).margin(1e-6));
  CHECK(end == Approx(0.05).margin(1e-6));  // the job's due end, whenever its thread woke
}

TEST_CASE("every strategy runs live over loopback: every instance, the plan's bytes, no faster "
          "than its GPU work", "[live]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  live::LiveOptions o;
  o.network_scale = 100;  // fc1's 537 MB become 5.4 MB per flow
  o.launch.netns = false;
  const live::LiveEngine engine(o);
  struct Case {
    int nodes, gpus, shards;
    ServerPlacement placement;
  };
  for (const auto& s : strategy_names())
    for (const Case c : {Case{3, 1, 3, ServerPlacement::colocated}, Case{2, 2, 2, ServerPlacement::colocated},
                         Case{2, 1, 2, ServerPlacement::dedicated}, Case{1, 1, 1, ServerPlacement::colocated}}) {
      PlanRequest r = request(net, prof, c.nodes, 40, 32, 2);
      r.cluster.gpus_per_node = c.gpus;
      r.cluster.server_shards = c.shards;
      r.cluster.placement = c.placement;
      const SyncPlan plan = make_plan(s, r);
      INFO(s << ", " << c.nodes << " nodes x " << c.gpus << " GPUs, " << c.shards << " " << to_string(c.placement)
             << " shards");
      const Result sim = sim::SimGridEngine().run(plan, {});
      const Result live = engine.run(plan, {});
      CHECK(live.engine == "live");
      CHECK(live.iteration_end_s.size() == 2);
      // The bytes the sockets carried are the plan's (at the scenario's scale).
      CHECK(live.sent_bytes_max == Approx(sim.sent_bytes_max).epsilon(1e-4).margin(1e3));
      CHECK(live.received_bytes_max == Approx(sim.received_bytes_max).epsilon(1e-4).margin(1e3));
      CHECK(live.sent_bytes_mean == Approx(sim.sent_bytes_mean).epsilon(1e-4).margin(1e3));
      // Emulated GPUs run exactly the plan's kernels: never less time than those (a timer
      // on a shared machine wakes late, never early).
      CHECK(live.gpu_busy_s >= sim.gpu_busy_s * 0.999);
      CHECK(live.gpu_busy_s <= sim.gpu_busy_s * 1.25 + 5e-3);
      CHECK(live.iteration_s >= sim.gpu_busy_s * 0.999);
      CHECK(live.breakdown.total() == Approx(live.iteration_s).epsilon(1e-6));
    }
}

TEST_CASE("16-bit gradients and factors move live as the plan says: half the bytes of fp32", "[live][numerics]") {
  const Network net = small_cnn();
  Profile base = flat_profile();
  base.peak_flops_by_math = {{"fp16", 8e12}};
  const Profile fp32 = base.with_numerics({Precision::fp32, DType::fp32});
  const Profile amp = base.with_numerics({Precision::amp_fp16, DType::fp16});
  live::LiveOptions o;
  o.network_scale = 100;
  o.launch.netns = false;
  const live::LiveEngine engine(o);
  for (const std::string s : {"wfbp", "poseidon", "allreduce"}) {
    INFO(s);
    const SyncPlan plan32 = make_plan(s, request(net, fp32, 3, 40, 32, 2));
    const SyncPlan plan16 = make_plan(s, request(net, amp, 3, 40, 32, 2));
    const Result sim32 = sim::SimGridEngine().run(plan32, {});
    const Result sim16 = sim::SimGridEngine().run(plan16, {});
    const Result live16 = engine.run(plan16, {});
    // In all, half the bytes (a node's own share depends on how 2 MiB pairs deal out).
    CHECK(sim16.sent_bytes_mean == Approx(sim32.sent_bytes_mean / 2).epsilon(1e-9));
    CHECK(live16.sent_bytes_mean == Approx(sim16.sent_bytes_mean).epsilon(1e-4).margin(1e3));
    CHECK(live16.sent_bytes_max == Approx(sim16.sent_bytes_max).epsilon(1e-4).margin(1e3));
    CHECK(live16.received_bytes_max == Approx(sim16.received_bytes_max).epsilon(1e-4).margin(1e3));
    CHECK(live16.gpu_busy_s >= sim16.gpu_busy_s * 0.999);
  }
}

TEST_CASE("a node killed mid-run ends the live run within seconds, naming it and its iteration: "
          "the completed iterations are kept, marked partial: nothing is left behind", "[live][netns]") {
  if (!can_make_namespaces()) FAIL("cannot create network namespaces (needs root and iproute2)");
  const std::set<std::string> before = possim_namespaces();
  // Under way: after the single-GPU baseline, the 4 nodes are at iteration 2.
  const LiveProcess run = start_live_run("kill", R"({"name": "kill", "model": "alexnet", "batch_per_gpu": 32,
             "cluster": {"nodes": [4], "nic_gbps": [10]}, "strategies": ["ps"],
             "profile": "titanx_maxwell", "iterations": 40,
             "live": {"network_scale": 20, "links": "netns"}})", 4, "iteration 2 of");
  const fs::path dir = run.dir;
  const pid_t pid = run.pid;
  std::string err;
  const std::set<pid_t> kids = group_members(pid, pid);
  REQUIRE(kids.size() >= 4);
  // The node processes were forked in node order, the single-GPU baseline ran in process.
  const pid_t victim = *std::next(kids.begin(), 2);
  ::kill(victim, SIGKILL);
  double took = 0;
  bool exited = false;
  const int status = wait_bounded(pid, std::chrono::seconds(30), took, exited);
  REQUIRE(exited);
  CHECK(took < 10);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) != 0);
  err = slurp(dir / "err.txt");
  INFO(err);
  CHECK(err.find("killed by signal 9") != std::string::npos);
  CHECK(err.find("pid " + std::to_string(victim)) != std::string::npos);
  CHECK(err.find("in iteration") != std::string::npos);
  CHECK(group_members(pid, pid).empty());
  CHECK(possim_namespaces() == before);
  // What the completed iterations measured is kept and marked; the error says where.
  CHECK(err.find("out/results.json") != std::string::npos);
  REQUIRE(fs::exists(dir / "out" / "results.json"));
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
  CHECK(j["failure"].get<std::string>().find("pid " + std::to_string(victim)) != std::string::npos);
  REQUIRE(j["results"].size() == 1);
  const auto& point = j["results"][0];
  CHECK(point["partial"] == true);
  CHECK(point["failure"].get<std::string>().find("killed by signal 9") != std::string::npos);
  const auto ends = point["iteration_end_s"].get<std::vector<double>>();
  CHECK(ends.size() >= 1);
  CHECK(ends.size() < 40);
  for (std::size_t t = 1; t < ends.size(); ++t) CHECK(ends[t] > ends[t - 1]);
  CHECK(point["iteration_s"].get<double>() > 0);
  const std::string csv = slurp(dir / "out" / "results.csv");
  CHECK(csv.substr(0, csv.find('\n')).find(",partial") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("SIGINT during a live run: every node process ends, every namespace goes, nothing is "
          "written, exit 130", "[live][netns]") {
  if (!can_make_namespaces()) FAIL("cannot create network namespaces (needs root and iproute2)");
  const std::set<std::string> before = possim_namespaces();
  const LiveProcess run = start_live_run("int", R"({"name": "int", "model": "alexnet", "batch_per_gpu": 32,
             "cluster": {"nodes": [3], "nic_gbps": [10]}, "strategies": ["wfbp"],
             "profile": "titanx_maxwell", "iterations": 40,
             "live": {"network_scale": 20, "links": "netns"}})", 3, "");
  const fs::path dir = run.dir;
  const pid_t pid = run.pid;
  REQUIRE(possim_namespaces().size() > before.size());  // its namespaces exist now
  ::kill(pid, SIGINT);
  double took = 0;
  bool exited = false;
  const int status = wait_bounded(pid, std::chrono::seconds(20), took, exited);
  REQUIRE(exited);
  CHECK(took < 5);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK(group_members(pid, pid).empty());
  CHECK(possim_namespaces() == before);
  CHECK_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

TEST_CASE("SIGKILL of a live run: its node processes die with it, quietly, and possim live cleanup "
          "removes its namespaces", "[live][netns]") {
  if (!can_make_namespaces()) FAIL("cannot create network namespaces (needs root and iproute2)");
  const std::set<std::string> before = possim_namespaces();
  const LiveProcess run = start_live_run("kill", R"({"name": "kill", "model": "alexnet", "batch_per_gpu": 32,
             "cluster": {"nodes": [3], "nic_gbps": [10]}, "strategies": ["wfbp"],
             "profile": "titanx_maxwell", "iterations": 40,
             "live": {"network_scale": 20, "links": "netns"}})", 3, "");
  const fs::path dir = run.dir;
  const pid_t pid = run.pid;
  REQUIRE(possim_namespaces().size() > before.size());
  ::kill(pid, SIGKILL);  // no handler runs: nothing of possim's cleans up
  double took = 0;
  bool exited = false;
  wait_bounded(pid, std::chrono::seconds(20), took, exited);
  REQUIRE(exited);
  // Its nodes end with it (they die with their parent), within a moment, and quietly: no
  // node dies of an exception it could not send ("sendmsg: Broken pipe", SIGABRT).
  const auto t0 = std::chrono::steady_clock::now();
  while (!group_members(pid, -1).empty() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::set<pid_t> left = group_members(pid, -1);
  for (pid_t p : left) ::kill(p, SIGKILL);
  CHECK(left.empty());
  const std::string err = slurp(dir / "err.txt");
  INFO(err);
  CHECK(err.find("terminate called") == std::string::npos);
  CHECK(err.find("Broken pipe") == std::string::npos);
  // What it could not delete, possim live cleanup does; a live run of another possim is
  // left alone (this test's own process is alive).
  const std::set<std::string> stale = possim_namespaces();
  REQUIRE(stale.size() > before.size());
  const Output o = run_possim("live cleanup", dir, 60);
  CHECK(o.status == 0);
  CHECK(o.out.find("deleted ") != std::string::npos);
  const std::set<std::string> after = possim_namespaces();
  for (const std::string& ns : stale)
    if (!before.count(ns)) CHECK_FALSE(after.count(ns));
  fs::remove_all(dir);
}

TEST_CASE("mpirun -np 4 runs a live scenario on loopback: rank r is node r, rank 0 writes the "
          "results, the bytes are the plan's", "[live][mpi]") {
  const fs::path dir = fs::temp_directory_path() / ("possim_live_mpi_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "s.json");
    f << R"({"name": "mpi", "model": "alexnet", "batch_per_gpu": 32,
             "cluster": {"nodes": [2, 4], "nic_gbps": [10]}, "strategies": ["ps", "allreduce"],
             "profile": "titanx_maxwell", "iterations": 3,
             "live": {"network_scale": 20, "links": "loopback"}})";
  }
  const int port = free_loopback_port();
  const Output o = run_command("env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe "
                               "-np 4 '" + possim_binary() + "' run s.json --engine live --coordinator 127.0.0.1:" +
                                   std::to_string(port) + " --out out -q",
                               dir, 120);
  INFO(o.err);
  REQUIRE(o.status == 0);
  const nlohmann::json live = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
  REQUIRE(live["results"].size() == 4);
  const Output s = run_possim("run s.json --engine simgrid --out sim -q", dir, 120);
  REQUIRE(s.status == 0);
  const nlohmann::json sim = nlohmann::json::parse(slurp(dir / "sim" / "results.json"));
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& l = live["results"][i];
    INFO(l["strategy"] << " at " << l["nodes"] << " nodes");
    CHECK(l["engine"] == "live");
    CHECK(l["sent_bytes_per_node_max"].get<double>() ==
          Approx(sim["results"][i]["sent_bytes_per_node_max"].get<double>()).epsilon(1e-4));
    CHECK(l["iteration_s"].get<double>() > 0);
  }
  fs::remove_all(dir);
}

TEST_CASE("the live engine runs the one-node golden plans in their hand-worked time, no faster", "[live][golden]") {
  // One node, nothing on the network: the emulated GPU, PCIe and host CPU alone. A timer on
  // a shared machine wakes late, never early.
  for (const std::string name : {"serial_copies", "cpu_optimizer"}) {
    const SyncPlan plan = load_plan(std::string(POSSIM_TESTS_DIR) + "/golden/" + name + ".plan.json");
    const double expected =
        nlohmann::json::parse(slurp(fs::path(POSSIM_TESTS_DIR) / "golden" / (name + ".expect.json"))).at("iteration_s");
    live::LiveOptions o;
    o.launch.netns = false;
    const Result r = live::LiveEngine(o).run(plan, {});
    INFO(name << ": live " << r.iteration_s << " s, by hand " << expected << " s");
    CHECK(r.iteration_s >= expected * 0.999);
    CHECK(r.iteration_s <= expected * 1.25 + 5e-3);
  }
}

TEST_CASE("the live engine runs the two-node golden plans over tc-shaped links in their hand-worked time",
          "[live][netns][golden]") {
  if (!can_make_namespaces()) FAIL("cannot create network namespaces (needs root and iproute2)");
  // The plans' 8 Gbit/s links scaled down 16x (0.5 Gbit/s: what this machine's shaped links
  // carry at their rate), bytes too, so the hand-worked times stand. The shaper's bucket is
  // 16 KB, not 4 ms of the rate (250 KB, as large as these plans' flows: with it they left
  // at veth speed, ring 36.9 ms and PS 39.2 ms). TCP's headers, acknowledgements and
  // window take some of the rate (measured: ring 41-51 ms, PS 48-57 ms).
  for (const std::string name : {"two_node_ring", "two_node_ps"}) {
    const SyncPlan plan = load_plan(std::string(POSSIM_TESTS_DIR) + "/golden/" + name + ".plan.json");
    const double expected =
        nlohmann::json::parse(slurp(fs::path(POSSIM_TESTS_DIR) / "golden" / (name + ".expect.json"))).at("iteration_s");
    live::LiveOptions o;
    o.network_scale = 16;
    o.launch.netns = true;
    o.launch.burst_bytes = 16 * 1024;
    // Runs of 0.2 s each, until one is within 20% of the hand-worked time of the bytes tbf
    // counts (1514-byte frames for 1448 payload bytes), at most 15: a busy machine's
    // scheduler only adds (ring 45.8-50.6 ms over three quiet runs; a CI run's best of three
    // 48.4 ms; 51.6 ms best of seven beside a second build), never takes away, so none may
    // be faster than by hand.
    constexpr double payload_per_frame = 1448.0 / 1514.0;
    const double bound = expected / payload_per_frame * 1.2;
    double best = 1e9;
    int runs = 0;
    for (; runs < 15 && best > bound; ++runs) {
      const Result r = live::LiveEngine(o).run(plan, {});
      INFO(name << ": live " << r.iteration_s << " s, by hand " << expected << " s");
      CHECK(r.failure.empty());
      CHECK(r.iteration_s >= expected * 0.98);
      best = std::min(best, r.iteration_s);
    }
    INFO(name << ": best live " << best << " s of " << runs << ", by hand " << expected << " s");
    CHECK(best <= bound);
  }
}

TEST_CASE("under mpirun, ranks 1..n-1 run every plan rank 0 sends, sit out those without them, and end when told",
          "[live][mpi]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  // Rank 0 runs a two-node ring all-reduce, then a three-node PS plan, then ends the run.
  // Ranks 1 and 2 build no plan of their own: rank 2 sits the first out.
  const SyncPlan ring = make_plan("allreduce", request(net, prof, 2, 10, 32, 2));
  const SyncPlan ps = make_plan("ps", request(net, prof, 3, 10, 32, 2));
  live::LaunchOptions o;
  o.netns = false;
  live::MpiRank m;
  m.size = 3;
  m.host = "127.0.0.1";
  m.port = free_loopback_port();
  std::vector<pid_t> ranks;
  for (int r = 1; r < m.size; ++r) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int status = 1;
      try {
        live::MpiRank mine = m;
        mine.rank = r;
        live::serve_rank(o, mine);
        status = 0;
      } catch (...) {
      }
      ::_exit(status);
    }
    ranks.push_back(pid);
  }
  const live::LiveRun first = live::run_rank(ring, o, m);
  const live::LiveRun second = live::run_rank(ps, o, m);
  live::end_ranks(o, m);
  for (const pid_t pid : ranks) {
    int status = -1;
    ::waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK(first.reports.size() == 2);   // both nodes reported on the ring's plan
  CHECK(second.reports.size() == 3);  // and all three on PS's
}

TEST_CASE("over tc-shaped links, a network-bound point runs live within 15% of SimGrid's "
          "prediction on the same plan", "[live][netns]") {
  if (!can_make_namespaces()) FAIL("cannot create network namespaces (needs root and iproute2)");
  // This machine's TCP (profiles/live_netns.json); AlexNet's 244 MB at 10 Gbit/s, scaled
  // down 20x. The shipped validation (reports/validation/) holds the model to 5%; here a
  // looser bound, as ctest may run this beside a CPU-heavy test on 2 cores.
  // 8 iterations, so the live median is of 7: one steady iteration in 4 comes out 8-22%
  // slower than the rest (the shaper's drops cut TCP's window; 36 dilated allreduce
  // iterations measured), and a median of 3 landed on such iterations in one CI run (15.05%).
  const fs::path dir = fs::temp_directory_path() / ("possim_live_acc_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "s.json");
    f << R"({"name": "acc", "model": "alexnet", "batch_per_gpu": 32,
             "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["ps", "allreduce"],
             "profile": "live_netns", "iterations": 8,
             "live": {"network_scale": 20, "links": "netns", "queue_ms": 10}})";
  }
  const Output o = run_possim("validate s.json --live --json v.json", dir, 300);
  INFO(o.out << o.err);
  REQUIRE(o.status == 0);
  const nlohmann::json v = nlohmann::json::parse(slurp(dir / "v.json"));
  REQUIRE(v["points"].size() == 2);
  for (const auto& p : v["points"]) {
    INFO(p["strategy"] << ": live " << p["measured_iteration_s"] << " s, simgrid " << p["predicted_iteration_s"]);
    CHECK(std::abs(p["error"].get<double>()) < 0.15);
    // The live range brackets the live median, and says whether the prediction is inside it.
    const double lo = p["measured_min_iteration_s"], hi = p["measured_max_iteration_s"],
                 med = p["measured_iteration_s"], pred = p["predicted_iteration_s"];
    CHECK(lo <= med);
    CHECK(med <= hi);
    CHECK(p["within_measured_range"].get<bool>() == (pred >= lo && pred <= hi));
  }
  // Time dilated 2x (model/plan/time_dilation.hpp): everything emulated twice as slow,
  // measured times halved; the prediction is unchanged and still within 15%.
  {
    std::ofstream f(dir / "d.json");
    f << R"({"name": "acc_dilated", "model": "alexnet", "batch_per_gpu": 32,
             "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["allreduce"],
             "profile": "live_netns", "iterations": 8,
             "live": {"network_scale": 20, "links": "netns", "queue_ms": 10, "time_dilation": 2}})";
  }
  const Output d = run_possim("validate d.json --live --json vd.json", dir, 300);
  INFO(d.out << d.err);
  REQUIRE(d.status == 0);
  CHECK(d.err.find("time dilated 2x") != std::string::npos);
  const nlohmann::json vd = nlohmann::json::parse(slurp(dir / "vd.json"));
  CHECK(vd["time_dilation"] == 2);
  for (const auto& p : vd["points"]) {
    INFO("dilated: live " << p["measured_iteration_s"] << " s, simgrid " << p["predicted_iteration_s"]);
    CHECK(std::abs(p["error"].get<double>()) < 0.15);
  }
  // The kernel's count of each link's bytes, beside the sockets': a little more (headers,
  // acknowledgements), never less.
  const Output r = run_possim("run s.json --engine live --out out -q", dir, 300);
  REQUIRE(r.status == 0);
  const nlohmann::json res = nlohmann::json::parse(slurp(dir / "out" / "results.json"));
  for (const auto& point : res["results"]) {
    std::map<std::string, double> bytes;
    for (const auto& l : point["links"]) bytes[l["link"].get<std::string>()] = l["bytes_per_iteration"].get<double>();
    for (const std::string link : {"nic-0 tx", "nic-0 rx", "nic-1 tx", "nic-1 rx"}) {
      INFO(point["strategy"] << " " << link);
      REQUIRE(bytes.count(link + " (kernel)"));
      CHECK(bytes[link] > 0);
      CHECK(bytes[link + " (kernel)"] >= bytes[link]);
      CHECK(bytes[link + " (kernel)"] <= bytes[link] * 1.03);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("SSP with log-normal stragglers and drops runs live: every instance, the plan's bytes",
          "[live]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  live::LiveOptions o;
  o.network_scale = 100;
  o.launch.netns = false;
  const live::LiveEngine engine(o);
  for (const std::string s : {"ps", "wfbp", "poseidon", "onebit"}) {
    PlanRequest r = request(net, prof, 3, 40, 32, 4);
    r.options.consistency = Consistency::ssp;
    r.options.staleness = 2;
    r.options.stragglers.kind = "lognormal";
    r.options.stragglers.sigma = 0.5;
    r.options.stragglers.drop_after = 1.2;
    const SyncPlan plan = make_plan(s, r);
    INFO(s);
    REQUIRE_FALSE(plan.undisturbed());
    const Result sim = sim::SimGridEngine().run(plan, {});
    const Result live = engine.run(plan, {});
    CHECK(live.iteration_end_s.size() == 4);
    CHECK(live.sent_bytes_max == Approx(sim.sent_bytes_max).epsilon(1e-4).margin(1e3));
    CHECK(live.received_bytes_mean == Approx(sim.received_bytes_mean).epsilon(1e-4).margin(1e3));
    // The result says which workers each step dropped: the plan's table, in every engine.
    std::size_t drops = 0;
    REQUIRE(live.dropped_workers.size() == 4);
    for (std::size_t t = 0; t < 4; ++t)
      for (int w = 0; w < 3; ++w) {
        const bool listed = std::count(live.dropped_workers[t].begin(), live.dropped_workers[t].end(), w) == 1;
        CHECK(listed == (plan.stragglers.dropped[t][std::size_t(w)] != 0));
        drops += listed;
      }
    CHECK(drops > 0);
    CHECK(sim.dropped_workers == live.dropped_workers);
    // (Not the time breakdown: under SSP with stragglers its shares do not add up to the
    // iteration in either engine, SimGrid's included: a known gap, see the closing note.)
  }
}

TEST_CASE("a stack's step synchronisation round is waited out live, and booked as barrier wait",
          "[live]") {
  const Network net = small_cnn();
  Profile prof = flat_profile();
  prof.step_sync_s = 0.05;
  live::LiveOptions o;
  o.network_scale = 100;
  o.launch.netns = false;
  const SyncPlan plan = make_plan("ps", request(net, prof, 2, 40, 32, 4));
  const Result sim = sim::SimGridEngine().run(plan, {});
  const Result live = live::LiveEngine(o).run(plan, {});
  CHECK(sim.breakdown[TimeShare::barrier_wait] == Approx(0.05).margin(1e-6));
  // A live wait ends late on a busy machine, never early; and it is booked once.
  INFO("live iteration " << live.iteration_s << " s");
  CHECK(live.breakdown[TimeShare::barrier_wait] >= 0.05 * 0.999);
  CHECK(live.breakdown[TimeShare::barrier_wait] < 2 * 0.05);
}
