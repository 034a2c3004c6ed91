// `possim calibrate kernels --from RUN --queued-step`: a recorded H200 run's layers scaled to
// its back-to-back step (calibrate/queued_step.hpp), held to the hand calculation from the
// sidecar's own numbers; the profile it makes, its notes, and the runs it refuses.
#include <catch2/catch.hpp>
#include <filesystem>

#include "calibrate/kernels.hpp"
#include "calibrate/profile_json.hpp"
#include "calibrate/queued_step.hpp"
#include "model/workload/zoo.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using namespace possim::calibrate;
namespace fs = std::filesystem;
using Approx = Catch::Detail::Approx;
using nlohmann::json;

namespace {

const std::string kRun = std::string(POSSIM_SOURCE_DIR) + "/traces/gpu/h200_2026-11-30/call1/kernels/resnet50_b64_bf16";

double block_seconds(const MeasuredModel& m) {
  double s = 0;
  for (const LayerTiming& l : m.layers) s += l.forward_s + l.backward_s;
  return s;
}

}  // namespace

TEST_CASE("a queued step scales every layer of a recorded run by back to back over the summed medians",
          "[calibrate][recorded]") {
  const json side = json::parse(test::slurp(kRun + ".calibration.json"));
  const Network net = make_zoo_network("resnet50");
  const KernelCalibration alone = recorded_calibration(side, net, "run");
  KernelCalibration queued = alone;
  scale_to_queued_step(queued, "run");

  // By hand from the sidecar: its step's back-to-back median over the layers' summed medians.
  double sum = 0;
  for (const json& l : side["layers"]) sum += l["forward_s"].get<double>() + l["backward_s"].get<double>();
  const double r = side["step"]["back_to_back_s"].get<double>() / sum;
  CHECK(r == Approx(0.668).epsilon(0.01));  // reports/gpu/README.md: -33.2% on resnet50 b64 bf16
  CHECK(queued.queued_step_scale == Approx(r).epsilon(1e-12));
  REQUIRE(queued.measured.layers.size() == net.layers.size());
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    CHECK(queued.measured.layers[i].forward_s == Approx(alone.measured.layers[i].forward_s * r).epsilon(1e-12));
    CHECK(queued.measured.layers[i].backward_s == Approx(alone.measured.layers[i].backward_s * r).epsilon(1e-12));
  }
  CHECK(block_seconds(queued.measured) == Approx(side["step"]["back_to_back_s"].get<double>()).epsilon(1e-12));
  for (const auto& [kind, rate] : alone.kind_flops_per_s)
    CHECK(queued.kind_flops_per_s.at(kind) == Approx(rate / r).epsilon(1e-12));
  // The kernels as timed stay as they were (the sidecar keeps them).
  CHECK(queued.layers.front().forward_s() == alone.layers.front().forward_s());

  // The profile: the measured block is the queued step, the bf16 peak the fastest queued
  // rate, and both say so.
  const Profile base = load_profile("h200");
  const Profile p0 = calibrated_profile(base, alone, "h");
  const Profile p = calibrated_profile(base, queued, "h");
  REQUIRE(p.measured.size() == p0.measured.size());
  CHECK(block_seconds(p.measured.back()) == Approx(block_seconds(p0.measured.back()) * r).epsilon(1e-12));
  CHECK(p.peak_for(possim::Precision::bf16) == Approx(p0.peak_for(possim::Precision::bf16) / r).epsilon(1e-12));
  CHECK(p.measured.back().source.find("to a queued step") != std::string::npos);
  CHECK(p0.measured.back().source.find("queued") == std::string::npos);
  CHECK(p.sources.at("peak_flops_per_s_by_precision").find("in a queued step") != std::string::npos);
  const json written = kernel_sidecar(queued, base);
  CHECK(written.at("queued_step_scale").get<double>() == queued.queued_step_scale);
  CHECK(written.at("layers") == kernel_sidecar(alone, base).at("layers"));
  // A run recorded before the per-pass marks writes none, and its sidecar reads back.
  CHECK(!written.at("step").contains("queued_layers"));
  CHECK(recorded_calibration(written, net, "written").step.queued_forward_s.empty());

  SECTION("scaled once only") { CHECK_THROWS_WITH(scale_to_queued_step(queued, "run"), Catch::Contains("already scaled")); }
  SECTION("a run without a step timing is refused by name") {
    json no_step = side;
    no_step.erase("step");
    KernelCalibration c = recorded_calibration(no_step, net, "run");
    CHECK_THROWS_WITH(scale_to_queued_step(c, "run"), Catch::Contains("run: step") && Catch::Contains("--step-repeats"));
  }
  SECTION("a run that left layers untimed is refused") {
    KernelCalibration c = alone;
    c.estimated_layers = {"fc1000"};
    CHECK_THROWS_WITH(scale_to_queued_step(c, "run"), Catch::Contains("not timed"));
  }
}

TEST_CASE("calibrate kernels from a recorded run scaled to its queued step writes a profile whose block is the back to back step",
          "[calibrate][recorded][cli]") {
  const auto dir = test::scratch("cal", "queued");
  const test::Output ok = test::run_possim("calibrate kernels --from '" + kRun + ".calibration.json' --base h200 "
                                           "--queued-step -q --out q.json",
                                           dir);
  REQUIRE(ok.status == 0);
  const Profile p = load_profile((dir / "q.json").string());
  const json side = json::parse(test::slurp(kRun + ".calibration.json"));
  REQUIRE(!p.measured.empty());
  CHECK(block_seconds(p.measured.back()) == Approx(side["step"]["back_to_back_s"].get<double>()).epsilon(1e-9));
  const json written = json::parse(test::slurp(dir / "q.calibration.json"));
  CHECK(written.at("recorded").get<std::string>().find("--queued-step") != std::string::npos);

  // Without --from, and on a run recorded without a step timing: refused, exit 2, nothing written.
  const test::Output bare = test::run_possim("calibrate kernels --model alexnet --queued-step --out b.json", dir);
  CHECK(bare.status == 2);
  CHECK(bare.err.find("--queued-step") != std::string::npos);
  const std::string old = std::string(POSSIM_SOURCE_DIR) + "/traces/gpu/h200_2026-11-27/call2/kernels/resnet50_b64_bf16";
  const test::Output no_step = test::run_possim(
      "calibrate kernels --from '" + old + ".calibration.json' --base h200 --queued-step --out n.json", dir);
  CHECK(no_step.status == 2);
  CHECK(test::count_lines(no_step.err) == 1);
  CHECK(no_step.err.find("--step-repeats") != std::string::npos);
  CHECK(!fs::exists(dir / "n.json"));
  CHECK(!fs::exists(dir / "b.json"));
}

// The shipped queued profile is what its script makes of the recordings with steps timed, and
// each of its measured blocks sums to that run's back-to-back step.
TEST_CASE("profiles/h200_queued.json is made from the H200 runs scaled to their queued steps",
          "[calibrate][recorded][shipped]") {
  const fs::path run = fs::path(POSSIM_SOURCE_DIR) / "traces" / "gpu" / "h200_2026-11-30";
  Profile made = load_profile("h200");
  std::vector<json> sides;
  for (const char* rec : {"call2/kernels/inception_v3_b32_fp32", "call1/kernels/resnet50_b64_fp32",
                          "call2/kernels/googlenet_b128_bf16", "call2/kernels/inception_v3_b32_bf16",
                          "call1/kernels/vgg19_b32_bf16", "call1/kernels/resnet50_b64_bf16"}) {
    const std::string path = (run / (std::string(rec) + ".calibration.json")).string();
    sides.push_back(json::parse(test::slurp(path)));
    KernelCalibration cal =
        recorded_calibration(sides.back(), make_zoo_network(sides.back().at("model").get<std::string>()), path);
    scale_to_queued_step(cal, path);
    made = calibrated_profile(made, cal, "h200_queued");
    optimizer_rate(json::parse(test::slurp(run / "../h200_2026-11-27/call1/roofline.json")),
                   "traces/gpu/h200_2026-11-27/call1/roofline.json")
        .apply_to(made);
  }
  const Profile shipped = load_profile("h200_queued");
  CHECK(profile_to_json(made) == profile_to_json(shipped));
  for (const json& side : sides) {
    const std::string model = side.at("model").get<std::string>();
    const int batch = side.at("batch").get<int>();
    const std::string precision = side.at("backend").at("precision").get<std::string>();
    const Profile p = precision == "bf16" ? shipped.with_numerics(Numerics{possim::Precision::amp_bf16}) : shipped;
    double step = 0;
    for (const LayerTime& t : p.layer_times(make_zoo_network(model), batch)) step += t.forward_s + t.backward_s;
    INFO(model << " b" << batch << " " << precision);
    CHECK(step == Approx(side.at("step").at("back_to_back_s").get<double>()).epsilon(1e-9));
  }
}
