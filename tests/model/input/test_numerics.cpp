// A scenario's precision and gradient type: layer times follow the precision's tensor-core
// peak (GEMM kinds) and activation bytes (memory-bound kinds), measured points count only at
// their own precision, and a precision the device lacks is refused, naming both.
#include <catch2/catch.hpp>

#include "model/input/error.hpp"
#include "model/input/profile.hpp"
#include "model/input/scenario.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;
using Approx = Catch::Detail::Approx;

namespace {

Layer relu_layer(const std::string& name, std::int64_t c, int hw) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::relu;
  l.in = l.out = Shape{c, hw, hw};
  l.fwd_flops = double(c * hw * hw);
  l.bwd_flops = double(c * hw * hw);
  return l;
}

// conv, relu, fc: one layer of each rule.
Network mixed_net() {
  Network net;
  net.name = "mixed";
  net.input = Shape{16, 8, 8};
  net.layers.push_back(conv_layer("conv", 16, 32, 8));
  net.layers.push_back(relu_layer("relu", 32, 8));
  net.layers.push_back(fc_layer("fc", 100, 32 * 8 * 8));
  return net;
}

// flat_profile (1 TFLOP/s fp32, every kind at 100%) with tensor cores: tf32 4 TFLOP/s, fp16
// 8 TFLOP/s, and a measured conv efficiency of 50% at fp16. No bf16.
Profile tensor_profile() {
  Profile p = flat_profile();
  p.peak_flops_by_math = {{"tf32", 4e12}, {"fp16", 8e12}};
  p.kind_efficiency_by_math["fp16"][LayerKind::conv] = 0.5;
  return p;
}

Profile at(const Profile& p, Precision prec) { return p.with_numerics({prec, default_gradient_dtype(prec)}); }

}  // namespace

TEST_CASE("layer times at each precision, by hand: GEMM kinds at the math's peak, memory-bound kinds "
          "by activation bytes", "[numerics]") {
  const Network net = mixed_net();
  const Layer &conv = net.layers[0], &relu = net.layers[1], &fc = net.layers[2];
  const int b = 16;
  const Profile p = tensor_profile();

  const auto fp32 = at(p, Precision::fp32).layer_times(net, b);
  CHECK(fp32[0].forward_s == Approx(b * conv.fwd_flops / 1e12).epsilon(1e-12));
  CHECK(fp32[1].forward_s == Approx(b * relu.fwd_flops / 1e12).epsilon(1e-12));
  CHECK(fp32[2].backward_s == Approx(b * fc.bwd_flops / 1e12).epsilon(1e-12));

  // tf32: fp32 storage, so the relu pass is unchanged; conv and fc at 4 TFLOP/s.
  const auto tf32 = at(p, Precision::tf32).layer_times(net, b);
  CHECK(tf32[0].forward_s == Approx(b * conv.fwd_flops / 4e12).epsilon(1e-12));
  CHECK(tf32[1].forward_s == Approx(b * relu.fwd_flops / 1e12).epsilon(1e-12));
  CHECK(tf32[2].forward_s == Approx(b * fc.fwd_flops / 4e12).epsilon(1e-12));

  // AMP fp16 and pure fp16 compute alike: conv at 8 TFLOP/s x its measured 0.5, fc at 8 x
  // its fp32 efficiency (1), relu moving 2-byte activations: half its fp32 time.
  for (Precision prec : {Precision::amp_fp16, Precision::fp16}) {
    INFO(to_string(prec));
    const auto t = at(p, prec).layer_times(net, b);
    CHECK(t[0].forward_s == Approx(b * conv.fwd_flops / (8e12 * 0.5)).epsilon(1e-12));
    CHECK(t[0].backward_s == Approx(b * conv.bwd_flops / (8e12 * 0.5)).epsilon(1e-12));
    CHECK(t[1].forward_s == Approx(b * relu.fwd_flops / 1e12 / 2).epsilon(1e-12));
    CHECK(t[2].forward_s == Approx(b * fc.fwd_flops / 8e12).epsilon(1e-12));
    CHECK(at(p, prec).compute_source(net, b).find(to_string(prec)) != std::string::npos);
  }
}

TEST_CASE("a precision whose math the profile has no peak for is refused, naming what it has", "[numerics]") {
  const std::string e = input_error([] { at(tensor_profile(), Precision::amp_bf16); });
  CHECK(e.find("no bf16 peak") != std::string::npos);
  CHECK(e.find("fp32, tf32, amp_fp16, fp16") != std::string::npos);
  // The shipped profiles carry the datasheets' dense tensor-core peaks (V100's x the share its
  // fit to published points found): V100 has fp16 only.
  const Profile v100 = load_profile("v100");
  CHECK(v100.peak_for(Precision::amp_fp16) > 0);
  CHECK(v100.peak_for(Precision::amp_fp16) <= 125e12);
  CHECK(v100.peak_for(Precision::tf32) == 0);
  CHECK(input_error([&] { at(v100, Precision::bf16); }).find("no bf16 peak") != std::string::npos);
  const Profile h200 = load_profile("h200");  // derived only: the datasheet's peaks as published
  CHECK(h200.peak_for(Precision::tf32) == 494.5e12);
  CHECK(h200.peak_for(Precision::amp_bf16) == 989.5e12);
  CHECK(h200.sources.count("peak_flops_per_s_by_precision") == 1);
  // H100's TF32 peak carries A100's fitted share; its 16-bit peaks are the datasheet's.
  const Profile h100 = load_profile("h100");
  CHECK(h100.peak_for(Precision::tf32) < 0.6 * 494.5e12);
  CHECK(h100.peak_for(Precision::amp_bf16) == 989.5e12);
}

TEST_CASE("measured points count only at their own precision", "[numerics]") {
  const Network net = mixed_net();
  Profile p = tensor_profile();
  ThroughputPoint fp32_point;
  fp32_point.model = net.name;
  fp32_point.batch = 16;
  fp32_point.images_per_s = 100;
  fp32_point.source = "test";
  p.throughput.push_back(fp32_point);
  // fp32: rule 2 rescales to the point (16 images in 0.16 s).
  double s = 0;
  for (const auto& t : at(p, Precision::fp32).layer_times(net, 16)) s += t.forward_s + t.backward_s;
  CHECK(s == Approx(0.16).epsilon(1e-12));
  CHECK(at(p, Precision::fp32).unmeasured_caveat().empty());
  // AMP: the fp32 point does not apply; the FLOP model alone, and the caveat says so.
  const Profile amp = at(p, Precision::amp_fp16);
  CHECK(amp.compute_source(net, 16).find("alone") != std::string::npos);
  CHECK(amp.unmeasured_caveat().find("no measured point at amp_fp16") != std::string::npos);
  // A point measured at amp_fp16 is the one AMP runs use.
  ThroughputPoint amp_point = fp32_point;
  amp_point.images_per_s = 400;
  amp_point.precision = Precision::amp_fp16;
  p.throughput.push_back(amp_point);
  s = 0;
  for (const auto& t : at(p, Precision::amp_fp16).layer_times(net, 16)) s += t.forward_s + t.backward_s;
  CHECK(s == Approx(0.04).epsilon(1e-12));
  CHECK(at(p, Precision::amp_fp16).unmeasured_caveat().empty());
}

TEST_CASE("a scenario's precision and gradient_dtype: defaults, each strategy's profile, refusals", "[numerics][scenario]") {
  const auto scenario = [](const std::string& extra, const std::string& profile = "a100") {
    return parse_scenario(R"({"model": "resnet50", "batch_per_gpu": 64, "profile": ")" + profile + R"(", )" + extra +
                              R"( "cluster": {"nodes": [2], "nic_gbps": [100]}, "strategies": ["allreduce", "ps"]})",
                          "dir/s.json", "dir");
  };
  const Scenario plain = scenario("");
  CHECK(plain.numerics.precision == Precision::fp32);
  CHECK(plain.numerics.gradient == DType::fp32);
  // AMP keeps fp32 master weights, so its gradients travel in fp32 unless told otherwise.
  const Scenario amp = scenario(R"("precision": "amp_bf16",)");
  CHECK(amp.numerics.precision == Precision::amp_bf16);
  CHECK(amp.numerics.gradient == DType::fp32);
  CHECK(amp.profile_for("allreduce").numerics == amp.numerics);
  CHECK(amp.profile_for("single").numerics == amp.numerics);
  const Scenario comp = scenario(R"("precision": "amp_fp16", "gradient_dtype": "fp16",)");
  CHECK(comp.numerics.gradient == DType::fp16);
  CHECK(scenario(R"("precision": "bf16",)").numerics.gradient == DType::bf16);

  const std::string bad = input_error([&] { scenario(R"("precision": "fp8",)"); });
  CHECK(bad.find("dir/s.json") != std::string::npos);
  CHECK(bad.find("precision") != std::string::npos);
  CHECK(bad.find("amp_bf16") != std::string::npos);
  CHECK(input_error([&] { scenario(R"("gradient_dtype": "int8",)"); }).find("gradient_dtype") != std::string::npos);
  const std::string volta = input_error([&] { scenario(R"("precision": "amp_bf16",)", "v100"); });
  CHECK(volta.find("precision") != std::string::npos);
  CHECK(volta.find("no bf16 peak") != std::string::npos);
}

TEST_CASE("a profile's provenance in one line: derived or measured, its points, its fits", "[numerics][profile]") {
  const Profile h200 = load_profile("h200");
  CHECK(h200.provenance_line() ==
        "derived from titanx_maxwell by the roofline, no measured point, 7 parameters fitted to measured iterations "
        "of titanx_maxwell's cluster (its software and network, carried over)");
  CHECK(load_profile("h100").provenance_line() ==
        "derived from titanx_maxwell by the roofline, compute fitted to 6 measured points at tf32 "
        "(traces/measured/published/resnet50_h100.csv), 7 parameters fitted to measured iterations of "
        "titanx_maxwell's cluster (its software and network, carried over)");
  CHECK(load_profile("v100").provenance_line() ==
        "derived from titanx_maxwell by the roofline, compute fitted to 10 measured points at fp32, amp_fp16 "
        "(traces/measured/published/resnet50_v100.csv), 7 parameters fitted to measured iterations of "
        "titanx_maxwell's cluster (its software and network, carried over)");
  const Profile tx = load_profile("titanx_maxwell");
  const std::string line = tx.provenance_line();
  CHECK(line.rfind("measured on its device, 6 throughput points and 0 per-layer timing sets (6 at fp32)", 0) == 0);
  CHECK(line.find("fitted to measured iterations") != std::string::npos);
  Profile t = tensor_profile();
  CHECK(t.provenance_line() == "measured on its device, no measured point");
}
