// Precision in the plan: every byte a strategy moves is a value of the scenario's gradient
// type (or, for sufficient factors, of its activation type), the server's apply counts
// master-weight bytes, the SF rebuild runs at the precision's peak; the analytic and SimGrid
// engines send exactly those bytes.
#include <catch2/catch.hpp>

#include "model/analytic/analytic_engine.hpp"
#include "model/plan/cost.hpp"
#include "sim/simgrid_engine.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;
using Approx = Catch::Detail::Approx;

namespace {

Profile with(Precision p, DType gradient) {
  Profile prof = flat_profile();
  prof.peak_flops_by_math = {{"tf32", 4e12}, {"fp16", 8e12}, {"bf16", 8e12}};
  return prof.with_numerics({p, gradient});
}

const Task* first(const SyncPlan& plan, Step step, Resource resource) {
  for (const Task& t : plan.tasks)
    if (t.step == step && t.resource == resource) return &t;
  return nullptr;
}

}  // namespace

TEST_CASE("a PS plan's gradients and parameters are values of the gradient type, by hand", "[numerics][plan]") {
  const std::int64_t m = 1024, n = 2048;
  const Network net = one_fc_net(m, n);
  for (const auto& [prec, grad, bytes] : {std::tuple{Precision::fp32, DType::fp32, 4.0},
                                          std::tuple{Precision::amp_fp16, DType::fp32, 4.0},
                                          std::tuple{Precision::amp_fp16, DType::fp16, 2.0},
                                          std::tuple{Precision::bf16, DType::bf16, 2.0}}) {
    INFO(to_string(prec) << " gradients " << to_string(grad));
    const Profile prof = with(prec, grad);
    const SyncPlan plan = make_plan("wfbp", request(net, prof, 2, 10));
    const Task* d2h = first(plan, Step::copy_d2h, Resource::pcie_d2h);
    const Task* push = first(plan, Step::push, Resource::network);
    const Task* pull = first(plan, Step::pull, Resource::network);
    REQUIRE((d2h && push && pull));
    CHECK(d2h->bytes == double(m * n) * bytes);
    CHECK(plan.tensors.at(std::size_t(push->tensor)).bytes == double(m * n) * bytes);
    CHECK(push->dtype == grad);
    CHECK(pull->dtype == grad);
    // The server updates master weights (fp32 but in pure 16-bit training) at 5 GB/s of
    // them: 16-bit gradients of fp32 weights are taken in at half that many wire bytes.
    const double master = bytes_per_value(master_dtype(prec));
    CHECK(plan.rates.server_apply_bytes_per_s == Approx(5e9 * bytes / master).epsilon(1e-15));
  }
}

TEST_CASE("all-reduce, 1-bit and SFB bytes follow the numerics, by hand", "[numerics][plan]") {
  const std::int64_t m = 4096, n = 4096;
  const Network net = one_fc_net(m, n);
  const Profile fp16 = with(Precision::fp16, DType::fp16);
  const Profile fp32 = with(Precision::fp32, DType::fp32);
  // Ring all-reduce of the layer's gradient.
  const SyncPlan ring = make_plan("allreduce", request(net, fp16, 4, 10));
  const Task* ar = first(ring, Step::allreduce, Resource::network);
  REQUIRE(ar);
  CHECK(ar->bytes == double(m * n) * 2);
  CHECK(ar->dtype == DType::fp16);
  // 1-bit: one bit per value and two fp32 levels per column, per 2-byte gradient value.
  const SyncPlan one = make_plan("onebit", request(net, fp16, 2, 10));
  const Task* q = first(one, Step::push, Resource::network);
  REQUIRE(q);
  CHECK(q->scale == Approx((double(m * n) / 8 + 8.0 * double(m)) / (double(m * n) * 2)).epsilon(1e-15));
  // SFB (Poseidon picks it for this FC layer at 8 nodes): K (M + N) activations of 2 bytes
  // per node, and the rebuild GEMM at the fp16 peak's share: 4 TFLOP/s x 8 / 1.
  const int nodes = 8, batch = 32;
  const SyncPlan sfb = make_plan("poseidon", request(net, fp16, nodes, 10, batch));
  const Task* bc = first(sfb, Step::broadcast, Resource::network);
  REQUIRE(bc);
  CHECK(bc->bytes == double(batch) * double(m + n) * 2);
  CHECK(bc->dtype == DType::fp16);
  const Task* rebuild = first(sfb, Step::rebuild, Resource::gpu);
  REQUIRE(rebuild);
  CHECK(rebuild->duration_s == Approx(2.0 * batch * double(m) * double(n) * (nodes - 1) / (4e12 * 8)).epsilon(1e-12));
  const SyncPlan sfb32 = make_plan("poseidon", request(net, fp32, nodes, 10, batch));
  const Task* rebuild32 = first(sfb32, Step::rebuild, Resource::gpu);
  REQUIRE(rebuild32);
  CHECK(rebuild32->duration_s == Approx(2.0 * batch * double(m) * double(n) * (nodes - 1) / 4e12).epsilon(1e-12));
}

TEST_CASE("SFB on nodes of several GPUs rebuilds the node's other GPUs' gradients too, by hand", "[plan]") {
  // The leader gathers its node's other GPUs' factors and must rebuild their gradients as
  // it rebuilds each peer node's: K' = (P1 - 1) G B + (G - 1) B rows in one GEMM.
  const std::int64_t m = 4096, n = 4096;
  const Network net = one_fc_net(m, n);
  const Profile fp32 = with(Precision::fp32, DType::fp32);
  const int nodes = 8, batch = 32, gpus = 4;
  PlanRequest r = request(net, fp32, nodes, 10, batch);
  r.cluster.gpus_per_node = gpus;
  const SyncPlan sfb = make_plan("poseidon", r);
  const Task* gather = first(sfb, Step::gather, Resource::intra_node);
  const Task* rebuild = first(sfb, Step::rebuild, Resource::gpu);
  REQUIRE(gather);
  REQUIRE(rebuild);
  const double rows = double(nodes - 1) * gpus * batch + double(gpus - 1) * batch;
  CHECK(rebuild->duration_s == Approx(2.0 * rows * double(m) * double(n) / 4e12).epsilon(1e-12));
}

TEST_CASE("Poseidon's BestScheme weighs factor bytes against gradient bytes", "[numerics][plan]") {
  // Table 1 at 16 workers, 8 shards, K = 32, M = N = 300: SFB's 2 K (P1 - 1)(M + N) =
  // 576,000 values against the PS's 2 M N (P1 + P2 - 2) / P2 = 495,000 in fp32; under AMP
  // its 16-bit factors weigh half (288,000): SFB.
  Layer l = fc_layer("fc", 300, 300);
  CHECK(best_scheme_atc17(l, 16, 8, 32) == Scheme::ps);
  CHECK(best_scheme_atc17(l, 16, 8, 32, 0.5) == Scheme::sfb);
}

TEST_CASE("the analytic and SimGrid engines send the plan's 16-bit bytes and agree", "[numerics][engines]") {
  const std::int64_t m = 2048, n = 4096;
  const Network net = one_fc_net(m, n);
  for (const std::string strategy : {"wfbp", "allreduce"}) {
    double iteration[2][2] = {};
    int i = 0;
    for (const DType grad : {DType::fp32, DType::fp16}) {
      INFO(strategy << " gradients " << to_string(grad));
      const Profile prof = with(Precision::amp_fp16, grad);
      const SyncPlan plan = make_plan(strategy, request(net, prof, 2, 10));
      const Result a = AnalyticEngine().run(plan, {});
      const Result s = sim::SimGridEngine().run(plan, {});
      // Two nodes: each sends half its gradient to the other (the PS's remote shard, or
      // the ring's reduce-scatter) and half of the reduced values back.
      const double bytes = double(m * n) * bytes_per_value(grad);
      CHECK(s.sent_bytes_max == Approx(bytes).epsilon(1e-9));
      CHECK(a.sent_bytes_max == Approx(bytes).epsilon(1e-9));
      CHECK(a.iteration_s == Approx(s.iteration_s).epsilon(0.03));
      iteration[i][0] = a.iteration_s;
      iteration[i][1] = s.iteration_s;
      ++i;
    }
    // Network-bound at 10 Gbit/s: half the bytes, nearly half the time.
    for (int e = 0; e < 2; ++e) {
      CHECK(iteration[1][e] < iteration[0][e] * 0.6);
      CHECK(iteration[1][e] > iteration[0][e] * 0.4);
    }
  }
}
