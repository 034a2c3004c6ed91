// Table 1 cost formulas and the BestScheme rules against POSEIDON.md section 4's worked
// examples. Every expected number is computed by hand in the comment beside it.
#include <catch2/catch.hpp>

#include "model/plan/cost.hpp"

using namespace possim;

namespace {

Layer fc(std::int64_t m, std::int64_t n) {  // M outputs, N inputs
  Layer l;
  l.name = "fc";
  l.kind = LayerKind::fc;
  l.fc_m = m;
  l.fc_n = n;
  l.weight_params = m * n;
  l.bias_params = m;
  return l;
}

Layer conv(std::int64_t params) {
  Layer l;
  l.name = "conv";
  l.kind = LayerKind::conv;
  l.weight_params = params;
  return l;
}

}  // namespace

TEST_CASE("4096x4096 FC on 8 workers, K=32: PS ~34M, SFB ~3.7M per node", "[cost]") {
  // MN = 4096 * 4096 = 16,777,216.
  // PS worker: 2MN = 33,554,432 (the paper's "about 34 M").
  CHECK(table1::ps_worker(4096, 4096) == 33554432.0);
  // PS server with P2 = P1 = 8: 2 * 8 * MN / 8 = 2MN = 33,554,432.
  CHECK(table1::ps_server(4096, 4096, 8, 8) == 33554432.0);
  // Colocated: 2MN (8 + 8 - 2) / 8 = 33,554,432 * 1.75 = 58,720,256.
  CHECK(table1::ps_colocated(4096, 4096, 8, 8) == 58720256.0);
  // SFB: 2 K (P1 - 1)(M + N) = 2 * 32 * 7 * 8192 = 3,670,016 (the paper's "about 3.7 M").
  CHECK(table1::sfb_worker(4096, 4096, 8, 32) == 3670016.0);
}

TEST_CASE("AlexNet-style 4096x4096 layer on 4 nodes, K=256", "[cost]") {
  // Full matrices through one server (P2 = 1): 2 * P1 * MN = 2 * 4 * 16,777,216
  // = 134,217,728 (the paper's 134.2 M).
  CHECK(table1::ps_server(4096, 4096, 4, 1) == 134217728.0);
  // Adam server: P1 MN + P1 K (M + N) = 67,108,864 + 4 * 256 * 8192 = 67,108,864
  // + 8,388,608 = 75,497,472 (the paper's 75.5 M).
  CHECK(table1::adam_server(4096, 4096, 4, 256) == 75497472.0);
  // SFB per node, Table 1: 2 K (P1 - 1)(M + N) = 2 * 256 * 3 * 8192 = 12,582,912 (12.6 M).
  // DISCREPANCY: the paper quotes 18.9 M for SFB here, which is (P1 - 1)^2 K (M + N)
  // = 9 * 256 * 8192 = 18,874,368 -- a different accounting from Table 1's per-node
  // figure. possim implements Table 1, so 12.6 M is what we check; the 18.9 M figure is
  // reproduced below only to document where the paper's number comes from.
  CHECK(table1::sfb_worker(4096, 4096, 4, 256) == 12582912.0);
  CHECK(3.0 * 3.0 * 256 * (4096 + 4096) == 18874368.0);
  CHECK(table1::sfb_worker(4096, 4096, 4, 256) != 18874368.0);
  // The paper's 7.1x: 134,217,728 / 18,874,368 = 7.11.
  CHECK(134217728.0 / 18874368.0 == Approx(7.11).epsilon(1e-3));
}

TEST_CASE("Adam worker and colocated costs", "[cost]") {
  // Worker: K (M + N) + MN = 256 * 8192 + 16,777,216 = 2,097,152 + 16,777,216 = 18,874,368.
  CHECK(table1::adam_worker(4096, 4096, 256) == 18874368.0);
  // Colocated: (P1 - 1)(MN + KM + KN) = 3 * (16,777,216 + 1,048,576 + 1,048,576)
  // = 3 * 18,874,368 = 56,623,104.
  CHECK(table1::adam_colocated(4096, 4096, 4, 256) == 56623104.0);
}

TEST_CASE("ATC17 rule: GoogLeNet classifier at 16 nodes falls back to PS", "[cost]") {
  // M = 1000, N = 1024, K = 128, P1 = P2 = 16.
  // SFB: 2 * 128 * 15 * 2024 = 7,772,160.
  // PS colocated: 2 * 1,024,000 * (16 + 16 - 2) / 16 = 2,048,000 * 1.875 = 3,840,000.
  // 7,772,160 > 3,840,000: PS.
  CHECK(table1::sfb_worker(1000, 1024, 16, 128) == 7772160.0);
  CHECK(table1::ps_colocated(1000, 1024, 16, 16) == 3840000.0);
  CHECK(best_scheme_atc17(fc(1000, 1024), 16, 16, 128) == Scheme::ps);
}

TEST_CASE("ATC17 rule: VGG19 fc6, fc7, fc8 at 8 nodes, K=32 choose SFB", "[cost]") {
  // P1 = P2 = 8: SFB = 2 * 32 * 7 (M + N) = 448 (M + N); PS colocated = 2MN * 14 / 8 = 3.5 MN.
  // fc6 4096 x 25088: SFB 448 * 29,184 = 13,074,432; PS 3.5 * 102,760,448 = 359,661,568.
  CHECK(table1::sfb_worker(4096, 25088, 8, 32) == 13074432.0);
  CHECK(table1::ps_colocated(4096, 25088, 8, 8) == 359661568.0);
  CHECK(best_scheme_atc17(fc(4096, 25088), 8, 8, 32) == Scheme::sfb);
  // fc7 4096 x 4096: SFB 3,670,016; PS 58,720,256.
  CHECK(best_scheme_atc17(fc(4096, 4096), 8, 8, 32) == Scheme::sfb);
  // fc8 1000 x 4096: SFB 448 * 5,096 = 2,283,008; PS 3.5 * 4,096,000 = 14,336,000.
  CHECK(table1::sfb_worker(1000, 4096, 8, 32) == 2283008.0);
  CHECK(table1::ps_colocated(1000, 4096, 8, 8) == 14336000.0);
  CHECK(best_scheme_atc17(fc(1000, 4096), 8, 8, 32) == Scheme::sfb);
}

TEST_CASE("ATC17 rule: ties go to SFB", "[cost]") {
  // M = N = 64, P1 = P2 = 2, K = 32: SFB 2 * 32 * 1 * 128 = 8,192;
  // PS colocated 2 * 4,096 * (2 + 2 - 2) / 2 = 8,192. Equal: "<=" picks SFB.
  CHECK(table1::sfb_worker(64, 64, 2, 32) == 8192.0);
  CHECK(table1::ps_colocated(64, 64, 2, 2) == 8192.0);
  CHECK(best_scheme_atc17(fc(64, 64), 2, 2, 32) == Scheme::sfb);
  // One more sample per worker tips it to PS: SFB 8,448 > 8,192.
  CHECK(best_scheme_atc17(fc(64, 64), 2, 2, 33) == Scheme::ps);
}

TEST_CASE("Every conv layer goes through the PS", "[cost]") {
  // Even a conv with VGG fc6's parameter count and tiny K: no factorization exists.
  for (int p1 : {2, 4, 8, 16, 32})
    for (int k : {1, 32, 256}) {
      CHECK(best_scheme_atc17(conv(102760448), p1, p1, k) == Scheme::ps);
      CHECK(best_scheme_sacp16(conv(102760448), p1, k) == Scheme::ps);
    }
  // Other kinds with parameters (BN) likewise.
  Layer bn = conv(512);
  bn.kind = LayerKind::bn;
  CHECK(best_scheme_atc17(bn, 8, 8, 32) == Scheme::ps);
  CHECK(best_scheme_sacp16(bn, 8, 32) == Scheme::ps);
}

TEST_CASE("SACP16 rule: SFB versus Adam both ways", "[cost]") {
  // Broadcast (P1 - 1) 2K (M + N) vs centralized P1 K (M + N) + P1 MN.
  // 4096 x 4096, P1 = 8, K = 32: 7 * 64 * 8192 = 3,670,016 vs 8 * 32 * 8192
  // + 8 * 16,777,216 = 2,097,152 + 134,217,728 = 136,314,880: SFB.
  CHECK(best_scheme_sacp16(fc(4096, 4096), 8, 32) == Scheme::sfb);
  // CIFAR-10 quick ip2 (10 x 64), P1 = 8, K = 100: 7 * 200 * 74 = 103,600 vs
  // 8 * 100 * 74 + 8 * 640 = 59,200 + 5,120 = 64,320: Adam.
  CHECK(best_scheme_sacp16(fc(10, 64), 8, 100) == Scheme::adam);
  // CIFAR-10 quick ip1 (64 x 1024), P1 = 8, K = 100: 7 * 200 * 1088 = 1,523,200 vs
  // 8 * 100 * 1088 + 8 * 65,536 = 870,400 + 524,288 = 1,394,688: Adam (narrowly).
  CHECK(best_scheme_sacp16(fc(64, 1024), 8, 100) == Scheme::adam);
  // Same layer on 2 nodes: 1 * 200 * 1088 = 217,600 vs 2 * 100 * 1088 + 2 * 65,536
  // = 348,672: SFB.
  CHECK(best_scheme_sacp16(fc(64, 1024), 2, 100) == Scheme::sfb);
}

TEST_CASE("One worker: nothing to broadcast, both rules give PS", "[cost]") {
  CHECK(table1::sfb_worker(4096, 4096, 1, 32) == 0.0);
  CHECK(best_scheme_atc17(fc(4096, 4096), 1, 1, 32) == Scheme::ps);
  CHECK(best_scheme_sacp16(fc(4096, 4096), 1, 32) == Scheme::ps);
}

TEST_CASE("SFB cost grows as P1 squared in total, PS stays flat per node", "[cost]") {
  // 4096 x 4096, K = 32, P2 = P1: SFB per node 2 * 32 * (P1 - 1) * 8192 grows linearly
  // per node (so P1^2 over the cluster) while PS colocated 2MN (2 P1 - 2) / P1 tends to
  // 4MN; SFB wins at 8 nodes (checked above) but loses by 128:
  // SFB 524,288 * 127 = 66,584,576 vs PS 33,554,432 * 254 / 128 = 66,584,576 -- a tie at
  // exactly 128 (SFB), and at 129: 67,108,864 vs 33,554,432 * 256 / 129 = 66,589,953 (rounded): PS.
  CHECK(best_scheme_atc17(fc(4096, 4096), 128, 128, 32) == Scheme::sfb);
  CHECK(best_scheme_atc17(fc(4096, 4096), 129, 129, 32) == Scheme::ps);
}
