// A kernel run recorded on one machine (a lent GPU) and made into a profile on another:
// `possim calibrate kernels --from RUN.calibration.json --base PROFILE`. Read back, the
// recording gives the same profile as the run that wrote it; an edited recording is refused
// by name; and the rules a calibration follows on top of its base: kinds the model lacks keep
// their achieved rate, a tensor-core run fills its own math and leaves the fp32 fields alone.
#include <catch2/catch.hpp>
#include <filesystem>

#include "calibrate/kernels.hpp"
#include "calibrate/profile_json.hpp"
#include "kernels/kernel_backend.hpp"
#include "model/workload/zoo.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using namespace possim::calibrate;
namespace fs = std::filesystem;
using Approx = Catch::Detail::Approx;
using nlohmann::json;

namespace {

// One small CPU run, as calibrate_kernels makes it, and its sidecar.
struct Recorded {
  Network net = make_zoo_network("cifar10_quick");
  KernelCalibration cal;
  json sidecar;
  Profile base = load_profile("titanx_maxwell");
  Recorded() {
    auto backend = make_backend("cpu", calibrate::Precision::fp32, 1);
    KernelRunOptions opt;
    opt.timing = {0, 1};
    opt.copy_sizes_bytes = {4096, 65536};
    cal = calibrate_kernels(net, 2, *backend, opt);
    sidecar = kernel_sidecar(cal, base);
  }
};

double achieved(const Profile& p, LayerKind k) { return p.kind_efficiency.at(k) * p.peak_flops_per_s; }

}  // namespace

TEST_CASE("a recorded kernel run read back gives the profile the run made", "[calibrate][recorded]") {
  const Recorded r;
  const KernelCalibration back = recorded_calibration(r.sidecar, r.net, "run.calibration.json");
  CHECK(back.kind_flops_per_s == r.cal.kind_flops_per_s);
  CHECK(back.rebuild_flops_per_s == r.cal.rebuild_flops_per_s);
  CHECK(back.copy_fit_ok == r.cal.copy_fit_ok);
  const json made = profile_to_json(calibrated_profile(r.base, r.cal, "p"));
  const json again = profile_to_json(calibrated_profile(r.base, back, "p"));
  CHECK(made == again);
  CHECK(kernel_sidecar(back, r.base) == r.sidecar);
}

TEST_CASE("an edited recording is refused by the field it breaks", "[calibrate][recorded]") {
  const Recorded r;
  json j = r.sidecar;
  j["layers"][1]["layer"] = "not_a_layer";
  CHECK_THROWS_WITH(recorded_calibration(j, r.net, "run.calibration.json"),
                    Catch::Contains("run.calibration.json") && Catch::Contains("layers[1].layer") &&
                        Catch::Contains("'not_a_layer' is not layer 1 of cifar10_quick"));
  j = r.sidecar;
  j["layers"][0]["forward"][0]["median_s"] = -1;
  CHECK_THROWS_WITH(recorded_calibration(j, r.net, "run.calibration.json"),
                    Catch::Contains("layers[0].forward[0].median_s"));
  j = r.sidecar;
  j["kind"] = "exchange";
  CHECK_THROWS_WITH(recorded_calibration(j, r.net, "x"), Catch::Contains("not the sidecar of possim calibrate kernels"));
}

TEST_CASE("a calibration keeps the achieved rate of kinds its model lacks", "[calibrate][recorded]") {
  const Recorded r;
  const Profile p = calibrated_profile(r.base, r.cal, "p");
  // cifar10_quick has no lrn, dropout or bn: their FLOP/s are the base's, whatever the new
  // peak, up to that peak (a CPU's conv rate is below a Titan X's lrn rate).
  for (LayerKind k : {LayerKind::lrn, LayerKind::dropout, LayerKind::bn})
    CHECK(achieved(p, k) == Approx(std::min(achieved(r.base, k), p.peak_flops_per_s)));
  // On a base slower than the run everywhere, the rates are kept exactly.
  Profile slow = r.base;
  slow.peak_flops_per_s = p.peak_flops_per_s / 100;
  const Profile q = calibrated_profile(slow, r.cal, "q");
  for (LayerKind k : {LayerKind::lrn, LayerKind::dropout, LayerKind::bn})
    CHECK(achieved(q, k) == Approx(achieved(slow, k)));
  // The measured kinds: their achieved rates.
  CHECK(achieved(p, LayerKind::conv) == Approx(r.cal.kind_flops_per_s.at(LayerKind::conv)));
}

TEST_CASE("a tensor-core recording fills its own math and leaves the fp32 fields", "[calibrate][recorded]") {
  const Recorded r;
  // The derived h100 profile has tf32 and bf16 peaks and no efficiencies of their own.
  const Profile base = load_profile("h100");
  REQUIRE(base.peak_for(possim::Precision::amp_bf16) > 0);
  json j = r.sidecar;
  j["backend"]["precision"] = "bf16";
  const KernelCalibration bf = recorded_calibration(j, r.net, "bf16.calibration.json");
  const Profile p = calibrated_profile(base, bf, "p");
  const double conv = bf.kind_flops_per_s.at(LayerKind::conv), fc = bf.kind_flops_per_s.at(LayerKind::fc);
  CHECK(p.peak_flops_per_s == base.peak_flops_per_s);
  CHECK(p.kind_efficiency == base.kind_efficiency);
  CHECK(p.rebuild_flops_per_s == base.rebuild_flops_per_s);
  CHECK(p.peak_for(possim::Precision::amp_bf16) == Approx(std::max(conv, fc)));
  CHECK(p.kind_efficiency_by_math.at("bf16").at(LayerKind::conv) * p.peak_for(possim::Precision::amp_bf16) ==
        Approx(conv));
  CHECK(p.kind_efficiency_by_math.at("bf16").at(LayerKind::fc) * p.peak_for(possim::Precision::amp_bf16) ==
        Approx(fc));
  REQUIRE(p.measured.size() == 1);
  CHECK(p.measured[0].precision == possim::Precision::bf16);

  // An fp32 run on the same base: tf32 keeps the base's conv rate (its peak x the base's fp32
  // efficiency), though the fp32 efficiencies now describe the measured run.
  const Profile q = calibrated_profile(base, r.cal, "q");
  const double tf32_conv_before = base.peak_for(possim::Precision::tf32) * base.kind_efficiency.at(LayerKind::conv);
  CHECK(q.peak_for(possim::Precision::tf32) * q.kind_efficiency_by_math.at("tf32").at(LayerKind::conv) ==
        Approx(tf32_conv_before));
}

TEST_CASE("possim calibrate kernels --from makes the profile without a backend", "[calibrate][recorded][cli]") {
  const auto dir = test::scratch("cal", "from");
  const auto made = test::run_possim(
      "calibrate kernels --model cifar10_quick --batch 2 --repeats 1 --warmup 0 --no-copies --out run.json -q", dir);
  REQUIRE(made.status == 0);
  const auto again =
      test::run_possim("calibrate kernels --from run.calibration.json --base titanx_maxwell --name run --out again.json", dir);
  REQUIRE(again.status == 0);
  CHECK(test::slurp(dir / "again.json") == test::slurp(dir / "run.json"));
  CHECK(again.err.find("recorded in run.calibration.json") != std::string::npos);
  // A roofline file sets the optimizer step's rate; a broken one fails before anything is written.
  test::write_file(dir / "roof.json", R"({"format": "possim-roofline-1", "device": "d",
    "device_copy": {"bytes_per_s_read_plus_write": 2e12}})");
  REQUIRE(test::run_possim("calibrate kernels --from run.calibration.json --roofline roof.json --out opt.json -q", dir)
              .status == 0);
  CHECK(load_profile((dir / "opt.json").string()).optimizer_bytes_per_s == 2e12);
  test::write_file(dir / "roof2.json", R"({"format": "possim-roofline-1", "device_copy": {}})");
  const auto broken = test::run_possim("calibrate kernels --from run.calibration.json --roofline roof2.json --out no.json", dir);
  CHECK(broken.status == 2);
  CHECK(broken.err.find("device_copy.bytes_per_s_read_plus_write") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "no.json"));
  // The profile runs.
  test::write_file(dir / "s.json", R"({"name": "s", "model": "cifar10_quick", "batch_per_gpu": 2,
    "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["wfbp"], "profile": "again.json",
    "iterations": 2, "seed": 1})");
  const auto run = test::run_possim("run s.json --engine analytic --out out", dir);
  CHECK(run.status == 0);
  // --model with --from, and a broken recording: exit 2, one message naming it.
  const auto both = test::run_possim("calibrate kernels --from run.calibration.json --model vgg19 --out x.json", dir);
  CHECK(both.status == 2);
  CHECK(both.err.find("--model") != std::string::npos);
  test::write_file(dir / "bad.calibration.json", "{\"kind\": \"kernels\", \"model\": \"cifar10_quick\"}");
  const auto bad = test::run_possim("calibrate kernels --from bad.calibration.json --out y.json", dir);
  CHECK(bad.status == 2);
  CHECK(bad.err.find("bad.calibration.json") != std::string::npos);
  CHECK(bad.err.find("batch") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "y.json"));
}

TEST_CASE("possim calibrate kernels refuses a poor copy line that would go into the profile (exit 3)",
          "[calibrate][recorded][cli][fit_quality]") {
  const auto dir = test::scratch("cal", "poor_copies");
  const Recorded r;
  const auto recorded = [&](const json& points) {
    json side = r.sidecar;
    side["copies"] = {{"crosses_a_bus", true}, {"points", points}};
    test::write_file(dir / "run.calibration.json", side.dump());
  };
  const auto copy = [](double bytes, double s) {
    return json{{"direction", "h2d"}, {"pinned", true}, {"bytes", bytes}, {"median_s", s}};
  };
  // Copy times that shrink and grow with size: no PCIe rate in them.
  recorded({copy(1e6, 3.8e-3), copy(2e6, 1.5e-3), copy(4e6, 9e-3), copy(8e6, 5.4e-3)});
  const auto poor = test::run_possim("calibrate kernels --from run.calibration.json --base titanx_maxwell --out p.json", dir);
  INFO(poor.err);
  CHECK(poor.status == 3);
  CHECK(poor.err.find("poor fit: pinned host<->device copies: R^2") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "p.json"));
  CHECK_FALSE(fs::exists(dir / "p.calibration.json"));
  const auto accepted = test::run_possim(
      "calibrate kernels --from run.calibration.json --base titanx_maxwell --out p.json --accept-poor-fit", dir);
  REQUIRE(accepted.status == 0);
  const Profile p = load_profile((dir / "p.json").string());
  for (const char* f : {"pcie_bytes_per_s", "pcie_latency_s"})
    CHECK(p.sources.at(f).find("ACCEPTED AS A POOR FIT (--accept-poor-fit): pinned host<->device copies: R^2") !=
          std::string::npos);
  // A negative fixed cost (times growing faster than bytes) is clamped to 0 and the rate
  // refitted through the origin: a line that is otherwise good is written.
  recorded({copy(1e6, 0.05e-3), copy(4e6, 0.3e-3), copy(16e6, 2.0e-3), copy(64e6, 9.5e-3)});
  const auto clamped = test::run_possim("calibrate kernels --from run.calibration.json --base titanx_maxwell --out c.json", dir);
  INFO(clamped.err);
  REQUIRE(clamped.status == 0);
  const Profile c = load_profile((dir / "c.json").string());
  CHECK(c.pcie_latency_s == 0);
  const double sxy = 1e6 * 0.05e-3 + 4e6 * 0.3e-3 + 16e6 * 2e-3 + 64e6 * 9.5e-3;
  const double sxx = 1e6 * 1e6 + 4e6 * 4e6 + 16e6 * 16e6 + 64e6 * 64e6;
  CHECK(c.pcie_bytes_per_s == Approx(sxx / sxy));  // 1 / the slope through the origin
  CHECK(c.sources.at("pcie_latency_s").find("was negative, so latency is 0") != std::string::npos);
  CHECK(c.sources.at("pcie_latency_s").find("ACCEPTED") == std::string::npos);
}

// The shipped measured profile is what its script makes of the committed GPU recordings:
// regenerating it after a change to the rules is a visible diff, not a silent drift.
TEST_CASE("profiles/h200_measured.json is made from the recorded H200 kernels", "[calibrate][recorded][shipped]") {
  const fs::path run = fs::path(POSSIM_TESTS_DIR) / ".." / "traces" / "gpu" / "h200_2026-11-27";
  Profile base = load_profile("h200");
  for (const char* rec : {"call1/kernels/googlenet_b128_fp32", "call1/kernels/inception_v3_b32_fp32",
                          "call1/kernels/vgg19_b32_fp32", "../h200_2026-11-29/call1/kernels/resnet50_b256_fp32",
                          "call1/kernels/resnet50_b64_fp32", "call3/kernels/googlenet_b128_bf16", "call3/kernels/inception_v3_b32_bf16",
                          "call3/kernels/vgg19_b32_bf16", "call3/kernels/resnet50_b256_bf16",
                          "call2/kernels/resnet50_b64_bf16"}) {
    const std::string path = (run / (std::string(rec) + ".calibration.json")).string();
    const json side = json::parse(test::slurp(path));
    const KernelCalibration cal =
        recorded_calibration(side, make_zoo_network(side.at("model").get<std::string>()), path);
    base = calibrated_profile(base, cal, "h200_measured");
    // make_profile.sh names the roofline by its path from the repository's root.
    optimizer_rate(json::parse(test::slurp(run / "call1/roofline.json")), "traces/gpu/h200_2026-11-27/call1/roofline.json")
        .apply_to(base);
  }
  const Profile shipped = load_profile("h200_measured");
  CHECK(profile_to_json(base) == profile_to_json(shipped));
  // Its header: measured, and its fitted software parameters named as the 2016 cluster's.
  CHECK(shipped.provenance_line().rfind("measured on its device, 0 throughput points and 10 per-layer timing sets", 0) == 0);
  CHECK(shipped.provenance_line().find("fitted to measured iterations of titanx_maxwell's cluster") != std::string::npos);
  // Its resnet50 timings are the recorded kernels' medians, in both precisions.
  const Network net = make_zoo_network("resnet50");
  const json fp32 = json::parse(test::slurp(run / "call1/kernels/resnet50_b64_fp32.calibration.json"));
  const auto times = shipped.layer_times(net, 64);
  REQUIRE(times.size() == fp32.at("layers").size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    CHECK(times[i].forward_s == fp32["layers"][i]["forward_s"].get<double>());
    CHECK(times[i].backward_s == fp32["layers"][i]["backward_s"].get<double>());
  }
  // Batch 256 in fp32 is its own recording (2026-11-29), not the batch-64 one scaled.
  const json fp32_256 =
      json::parse(test::slurp(run / "../h200_2026-11-29/call1/kernels/resnet50_b256_fp32.calibration.json"));
  const auto times256 = shipped.layer_times(net, 256);
  REQUIRE(times256.size() == fp32_256.at("layers").size());
  CHECK(times256[0].forward_s == fp32_256["layers"][0]["forward_s"].get<double>());
  CHECK(times256.back().backward_s == fp32_256["layers"].back()["backward_s"].get<double>());
  const auto amp = shipped.with_numerics(Numerics{possim::Precision::amp_bf16}).layer_times(net, 64);
  const json bf16 = json::parse(test::slurp(run / "call2/kernels/resnet50_b64_bf16.calibration.json"));
  CHECK(amp[0].forward_s == bf16["layers"][0]["forward_s"].get<double>());
}
