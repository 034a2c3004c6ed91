// Where the time goes (model/run/breakdown.hpp): the shares add up to the iteration in
// both engines, the GPU's shares are its busy time, and hand-worked points come out.
#include <catch2/catch.hpp>

#include "support/fixtures.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/run/result_io.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;
using namespace possim::test;

namespace {

Result run(const std::string& engine, const std::string& strategy, const PlanRequest& r) {
  const SyncPlan plan = make_plan(strategy, r);
  if (engine == "analytic") return AnalyticEngine().run(plan, RunOptions{});
  return sim::SimGridEngine().run(plan, RunOptions{});
}

double gpu_shares(const Breakdown& b) {
  return b[TimeShare::compute] + b[TimeShare::sf_rebuild] + b[TimeShare::quantization];
}

// Forward and backward of every layer at the flat profile's 1 TFLOP/s.
double nominal_compute_s(const Network& net, int batch) {
  double s = 0;
  for (const Layer& l : net.layers) s += batch * (l.fwd_flops + l.bwd_flops) / 1e12;
  return s;
}

}  // namespace

TEST_CASE("the time shares add up to the iteration, and the GPU's are its busy time, in both "
          "engines for every strategy", "[breakdown]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const std::string engine : {"analytic", "simgrid"})
    for (const auto& s : strategy_names())
      for (int nodes : {1, 4})
        for (double gbps : {1.0, 40.0})
          for (int gpus : {1, 2})
            for (auto placement : {ServerPlacement::colocated, ServerPlacement::dedicated}) {
              if (gpus == 2 && placement == ServerPlacement::dedicated) continue;
              PlanRequest r = request(net, prof, nodes, gbps, 32, 3);
              r.cluster.gpus_per_node = gpus;
              r.cluster.placement = placement;
              r.cluster.server_shards = placement == ServerPlacement::dedicated ? 2 : nodes;
              const Result res = run(engine, s, r);
              INFO(engine << " " << s << " " << nodes << " nodes x " << gpus << " GPUs, " << gbps
                          << " Gbit/s, " << to_string(placement) << " shards");
              CHECK(res.breakdown.total() == Approx(res.iteration_s).epsilon(1e-9));
              for (double v : res.breakdown.s) CHECK(v >= 0);
              CHECK(gpu_shares(res.breakdown) == Approx(res.gpu_busy_s).epsilon(1e-6));
              CHECK(res.breakdown[TimeShare::compute] == Approx(nominal_compute_s(net, 32)).epsilon(1e-9));
              // Layer rows hold no more than the whole, and none is negative.
              Breakdown layers;
              for (const LayerResult& l : res.layers) {
                for (double v : l.breakdown.s) CHECK(v >= 0);
                layers += l.breakdown;
              }
              CHECK(layers.total() <= res.breakdown.total() * (1 + 1e-9));
            }
}

TEST_CASE("naive PS, hand-worked: compute, then the copies, flows and apply in series",
          "[breakdown]") {
  // The point tests/sim/test_simgrid.cpp works out by hand: nothing overlaps, so each share is
  // its step's time.
  const Network net = one_fc_net(1024, 2048);
  const Profile prof = flat_profile();
  const double bytes = 1024.0 * 2048 * 4;
  const double nic = 10e9 / 8 * 0.9;
  const double compute = 32 * 6.0 * 1024 * 2048 / 1e12;
  const double copy = 10e-6 + bytes / 10e9;
  const double push = 2 * 20e-6 + 50e-6 + 0.5 * bytes / nic;
  const double apply = 2 * (bytes / 2) / 5e9;
  for (const std::string engine : {"analytic", "simgrid"}) {
    INFO(engine);
    const Result r = run(engine, "ps", request(net, prof, 2, 10, 32, 4));
    CHECK(r.breakdown[TimeShare::compute] == Approx(compute).epsilon(1e-9));
    CHECK(r.breakdown[TimeShare::pcie] == Approx(2 * copy).epsilon(1e-6));
    CHECK(r.breakdown[TimeShare::network] == Approx(2 * push).epsilon(1e-6));
    CHECK(r.breakdown[TimeShare::server_apply] == Approx(apply).epsilon(1e-6));
    CHECK(r.breakdown[TimeShare::barrier_wait] == Approx(0).margin(1e-12));
    // One layer: its row is the whole iteration.
    REQUIRE(r.layers.size() == 1);
    CHECK(r.layers[0].breakdown.total() == Approx(r.iteration_s).epsilon(1e-9));
  }
}

TEST_CASE("a copy's host work (PS client passes) is its own share, split from PCIe by rate",
          "[breakdown]") {
  // Caffe+PS's client passes over the whole buffer once per shard, in series with the DMA:
  // per byte 1/pcie + shards/client_pass seconds (plan_builder.cpp).
  const Network net = one_fc_net(1024, 2048);
  Profile prof = flat_profile();
  prof.client_pass_bytes_per_s = 2e9;
  const PlanRequest r = request(net, prof, 2, 10, 32, 4);
  const double pcie_per_byte = 1 / 10e9, host_per_byte = 2 / 2e9;  // two shards
  const double host_share = host_per_byte / (pcie_per_byte + host_per_byte);
  const double bytes = 1024.0 * 2048 * 4;
  const double copies = 2 * (10e-6 + bytes * (pcie_per_byte + host_per_byte));
  for (const std::string engine : {"analytic", "simgrid"}) {
    INFO(engine);
    const Result res = run(engine, "ps", r);
    CHECK(res.breakdown[TimeShare::pcie] + res.breakdown[TimeShare::host_copy] == Approx(copies).epsilon(1e-6));
    CHECK(res.breakdown[TimeShare::host_copy] == Approx(copies * host_share).epsilon(1e-6));
    CHECK(res.breakdown.total() == Approx(res.iteration_s).epsilon(1e-9));
  }
}

TEST_CASE("SF rebuild and 1-bit quantization are their kernels' hand-worked times", "[breakdown]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  const int nodes = 4, batch = 32;
  double rebuild = 0, quantize = 0;
  for (const Layer& l : net.layers) {
    if (l.kind == LayerKind::fc)  // one GEMM rebuilds the other P - 1 peers' gradients
      rebuild += 2.0 * batch * double(l.fc_m) * double(l.fc_n) * (nodes - 1) / prof.rebuild_flops_per_s;
    quantize += double(l.params()) * 4 / prof.quantize_bytes_per_s;
  }
  for (const std::string engine : {"analytic", "simgrid"}) {
    INFO(engine);
    const Result sfb = run(engine, "poseidon", request(net, prof, nodes, 10, batch, 3));
    // Poseidon broadcasts factors only where SFB is cheaper than PS: count those layers.
    double sfb_rebuild = 0;
    for (const LayerResult& l : sfb.layers)
      if (l.scheme == "sfb") sfb_rebuild += l.breakdown[TimeShare::sf_rebuild];
    CHECK(sfb.breakdown[TimeShare::sf_rebuild] == Approx(sfb_rebuild).epsilon(1e-9));
    CHECK(sfb.breakdown[TimeShare::sf_rebuild] > 0);
    CHECK(sfb.breakdown[TimeShare::sf_rebuild] <= rebuild * (1 + 1e-9));
    const Result all_sfb = run(engine, "adam", request(net, prof, nodes, 10, batch, 3));
    CHECK(all_sfb.breakdown[TimeShare::sf_rebuild] == Approx(0).margin(1e-12));  // Adam rebuilds on the server
    const Result onebit = run(engine, "onebit", request(net, prof, nodes, 10, batch, 3));
    CHECK(onebit.breakdown[TimeShare::quantization] > 0);
    CHECK(onebit.breakdown[TimeShare::quantization] <= quantize * (1 + 1e-9));
  }
}

TEST_CASE("a straggler's extra time is barrier wait, whether worker 0 is slow or waits for one",
          "[breakdown][stragglers]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  const double compute = nominal_compute_s(net, 32);
  for (const std::string engine : {"analytic", "simgrid"})
    for (const std::vector<double>& slow : {std::vector<double>{2, 1, 1, 1}, std::vector<double>{1, 2, 1, 1}}) {
      PlanRequest r = request(net, prof, 4, 40, 32, 4);
      r.options.stragglers.kind = "fixed";
      r.options.stragglers.slowdown = slow;
      const Result res = run(engine, "wfbp", r);
      INFO(engine << ", worker 0 slowdown " << slow[0]);
      CHECK(res.breakdown.total() == Approx(res.iteration_s).epsilon(1e-9));
      CHECK(res.breakdown[TimeShare::compute] == Approx(compute).epsilon(1e-9));
      if (slow[0] > 1) {
        // Worker 0 is the straggler: half of each of its kernels is waiting.
        CHECK(res.breakdown[TimeShare::barrier_wait] >= compute * (1 - 1e-9));
      } else {
        // Worker 0 idles while worker 1 computes; part of that overlaps its own flows.
        CHECK(res.breakdown[TimeShare::barrier_wait] > 0.01 * compute);
        CHECK(res.breakdown[TimeShare::barrier_wait] <= res.iteration_s - compute);
      }
    }
}

TEST_CASE("results carry the shares: JSON round trip and CSV columns", "[breakdown]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  const Result r = run("analytic", "poseidon", request(net, prof, 4, 10, 32, 3));
  const Result back = result_from_json(result_to_json(r, false));
  for (std::size_t i = 0; i < kTimeShares; ++i) {
    CHECK(back.breakdown.s[i] == r.breakdown.s[i]);
    for (std::size_t l = 0; l < r.layers.size(); ++l) CHECK(back.layers[l].breakdown.s[i] == r.layers[l].breakdown.s[i]);
  }
  const std::string csv = results_csv({r});
  for (std::size_t i = 0; i < kTimeShares; ++i) CHECK(csv.find(column_name(TimeShare(i))) != std::string::npos);
}

TEST_CASE("the breakdown's share is the step's, whatever the label says", "[breakdown]") {
  Task t;
  t.resource = Resource::gpu;
  t.label = "backward";  // display only
  t.step = Step::rebuild;
  CHECK(share_of(t) == TimeShare::sf_rebuild);
  t.step = Step::quantize;
  CHECK(share_of(t) == TimeShare::quantization);
  t.step = Step::backward;
  t.label = "mystery";
  CHECK(share_of(t) == TimeShare::compute);
  // Every step has a share, and the steps of one resource agree with what engines record.
  for (std::size_t i = 0; i < kSteps; ++i) {
    t.step = Step(i);
    const TimeShare s = share_of(t);
    if (resource_of(t.step) == Resource::gpu)  // a kernel: its own share
      CHECK((s == TimeShare::compute || s == TimeShare::sf_rebuild || s == TimeShare::quantization));
    else  // what a wait for its resource counts as
      CHECK(s == info(resource_of(t.step)).waited);
  }
}

TEST_CASE("results carry the spread of the steady iterations and the dropped workers, hand-worked",
          "[breakdown]") {
  Result r;
  r.model = "m";  // a header result_from_json accepts: a strategy and engine possim knows,
  r.strategy = "ps";  // workers for the dropped indices, the iterations the ends count
  r.engine = "analytic";
  r.cluster.nodes = 3;
  r.iterations = 4;
  r.batch_per_gpu = 32;
  r.iteration_end_s = {1.0, 1.5, 2.25, 2.75};  // steady iterations of 0.5, 0.75, 0.5 s
  r.iteration_s = 0.5833333333;
  r.dropped_workers = {{}, {2}, {0, 1}, {}};
  const Result::Spread sp = r.iteration_spread();
  CHECK(sp.min_s == Approx(0.5));
  CHECK(sp.max_s == Approx(0.75));
  // Mean 7/12; deviations -1/12, +2/12, -1/12: variance (1 + 4 + 1) / 144 / 3.
  CHECK(sp.stdev_s == Approx(std::sqrt(6.0 / 144 / 3)));
  CHECK(r.dropped_worker_steps() == 3);
  const Result back = result_from_json(result_to_json(r, false));
  CHECK(back.dropped_workers == r.dropped_workers);
  const nlohmann::json j = result_to_json(r, false);
  CHECK(j["iteration_s_max"] == Approx(0.75));
  const std::string csv = results_csv({r});
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK(header.find("iteration_s,iteration_s_min,iteration_s_max,iteration_s_stdev,") != std::string::npos);
  CHECK(header.find(",dropped_worker_steps") != std::string::npos);
  CHECK(csv.find(",0.5,0.75,") != std::string::npos);
  Result one;
  one.iteration_end_s = {2.0};
  CHECK(one.iteration_spread().max_s == 0);
  // Equal iterations whose end times rounded apart (0.3 - 0.2 != 0.2 - 0.1 in doubles): no spread.
  Result alike;
  alike.iteration_end_s = {0.1, 0.2, 0.3, 0.4};
  REQUIRE(0.3 - 0.2 != 0.2 - 0.1);
  const Result::Spread a = alike.iteration_spread();
  CHECK(a.stdev_s == 0);
  CHECK(a.min_s == a.max_s);
  CHECK(a.min_s == Approx(0.1));
}
