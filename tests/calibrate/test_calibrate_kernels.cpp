// `possim calibrate kernels` and `calibrate roofline` on the CPU backend: the profile the
// timings become (loaded back, driving the analytic engine, accepted by `possim run`), a
// layer limit, and the roofline's figures. The backends themselves: kernels/test_kernels.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "calibrate/kernels.hpp"
#include "calibrate/profile_json.hpp"
#include "calibrate/queued_step.hpp"
#include "kernels/kernel_backend.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/strategies/strategy.hpp"
#include "model/workload/zoo.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using namespace possim::calibrate;
namespace fs = std::filesystem;
using Approx = Catch::Detail::Approx;

TEST_CASE("calibrated profile loads back and its measured block drives the analytic engine",
          "[calibrate]") {
  const Network net = make_zoo_network("cifar10_quick");
  auto backend = make_backend("cpu", calibrate::Precision::fp32, 1);
  KernelRunOptions opt;
  opt.timing = {0, 1};
  opt.copy_sizes_bytes = {4096, 65536, 1 << 20};
  const KernelCalibration cal = calibrate_kernels(net, 4, *backend, opt);
  REQUIRE(cal.measured.layers.size() == net.layers.size());
  CHECK(cal.estimated_layers.empty());
  CHECK(cal.rebuild.size() == 2);  // ip1 and ip2
  CHECK(cal.rebuild_flops_per_s > 0);
  CHECK(cal.kind_flops_per_s.count(LayerKind::conv) == 1);

  const Profile base = load_profile("titanx_maxwell");
  const Profile p = calibrated_profile(base, cal, "cq_test");
  CHECK(p.peak_flops_per_s > 0);
  for (const auto& [k, e] : p.kind_efficiency) {
    CHECK(e > 0);
    CHECK(e <= 1);
  }
  CHECK(p.throughput.empty());
  CHECK(p.pcie_bytes_per_s == base.pcie_bytes_per_s);  // a CPU has no PCIe to measure
  CHECK(p.sources.at("pcie_bytes_per_s").find("from base profile titanx_maxwell") !=
        std::string::npos);
  CHECK(p.sources.at("tcp_goodput").find("from base profile titanx_maxwell") != std::string::npos);

  const auto dir = test::scratch("cal", "kernels");
  const std::string path = (dir / "cq_test.json").string();
  write_profile_with_sidecar(p, kernel_sidecar(cal, base), path);
  const Profile back = load_profile(path);
  CHECK(back.name == "cq_test");
  REQUIRE(back.measured.size() == 1);
  const auto times = back.layer_times(net, 4);
  REQUIRE(times.size() == net.layers.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    CHECK(times[i].forward_s == Approx(cal.measured.layers[i].forward_s));
    CHECK(times[i].backward_s == Approx(cal.measured.layers[i].backward_s));
  }
  CHECK(back.compute_source(net, 4).find("measured per-layer timings") == 0);

  std::ifstream side(sidecar_path(path));
  REQUIRE(side.good());
  const auto j = nlohmann::json::parse(side);
  CHECK(j.at("format") == "possim-calibration-1");
  CHECK(j.at("backend").at("backend") == "cpu");
  CHECK(j.at("layers").size() == net.layers.size());
  CHECK(j.at("copies").at("points").size() == 6);

  // The single-GPU iteration of the analytic engine is the sum of the measured layers.
  PlanRequest r;
  r.net = &net;
  r.profile = &back;
  r.batch_per_gpu = 4;
  const Result res = AnalyticEngine().run(make_plan("single", r), RunOptions{});
  double sum = back.per_iteration_s;
  for (const auto& t : cal.measured.layers) sum += t.forward_s + t.backward_s;
  CHECK(res.iteration_s == Approx(sum).epsilon(1e-9));
}

TEST_CASE("a layer limit (--layers) bounds the work and labels the estimated layers",
          "[calibrate]") {
  const Network net = make_zoo_network("cifar10_quick");
  auto backend = make_backend("cpu", calibrate::Precision::fp32, 1);
  KernelRunOptions opt;
  opt.timing = {0, 1};
  opt.max_layers = 4;
  opt.copy_sizes_bytes.clear();
  const KernelCalibration cal = calibrate_kernels(net, 2, *backend, opt);
  CHECK(cal.layers.size() == 4);
  CHECK(cal.measured.layers.size() == net.layers.size());
  CHECK(cal.estimated_layers.size() == net.layers.size() - 4);
  for (const auto& t : cal.measured.layers) {
    CHECK(t.forward_s > 0);
    CHECK(std::isfinite(t.backward_s));
  }
  const Profile p = calibrated_profile(load_profile("titanx_maxwell"), cal, "partial");
  CHECK(p.measured.back().source.find("only the first 4 of 12 layers were timed") !=
        std::string::npos);
}

TEST_CASE("possim calibrate kernels writes a profile that possim run accepts", "[calibrate][cli]") {
  const auto dir = test::scratch("cal", "cli_kernels");
  const test::Output o = test::run_possim(
      "calibrate kernels --model cifar10_quick --batch 8 --backend cpu --repeats 1 "
      "--out cq.json -q",
      dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  REQUIRE(fs::exists(dir / "cq.json"));
  REQUIRE(fs::exists(dir / "cq.calibration.json"));
  const Profile p = load_profile((dir / "cq.json").string());
  CHECK(p.measured.at(0).layers.size() == make_zoo_network("cifar10_quick").layers.size());

  std::ofstream(dir / "scenario.json") << R"({
    "name": "cq_calibrated", "description": "cifar10_quick on its calibrated profile",
    "model": "cifar10_quick", "batch_per_gpu": 8,
    "cluster": {"nodes": [1, 2], "gpus_per_node": 1, "nic_gbps": [10], "latency_s": 50e-6,
                "servers": {"shards": "per_node", "placement": "colocated"}},
    "strategies": ["poseidon"], "profile": "cq.json", "iterations": 3, "seed": 1})";
  const test::Output run =
      test::run_possim("run scenario.json --engine analytic --out res -q", dir);
  INFO(run.err);
  CHECK(run.status == 0);
  CHECK(fs::exists(dir / "res" / "results.json"));

  // Bad input: one line, exit 2; no GPU: one clear line, exit 1; nothing written either way.
  const test::Output bad =
      test::run_possim("calibrate kernels --model cifar10_quick --precision fp8 --out x.json", dir);
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--precision") != std::string::npos);
  const test::Output gpu = test::run_possim(
      "calibrate kernels --model cifar10_quick --batch 2 --backend gpu --out g.json -q", dir);
  if (gpu.status != 0) {
    CHECK(gpu.status == 1);
    CHECK((gpu.err.find("no CUDA device: use --backend cpu") != std::string::npos ||
           gpu.err.find("GPU backend not built") != std::string::npos));
    CHECK_FALSE(fs::exists(dir / "g.json"));
  }
  const test::Output help = test::run_possim("calibrate kernels --help", dir);
  CHECK(help.status == 0);
  CHECK(help.out.find("--backend") != std::string::npos);
}

TEST_CASE("calibrate roofline: a square GEMM's FLOPs over its median, a copy's bytes read and written",
          "[calibrate]") {
  const auto dir = test::scratch("calibrate", "roofline");
  const test::Output o =
      test::run_possim("calibrate roofline --gemm 128 --copy-mib 2 --repeats 3 --warmup 1 --out r.json", dir, 120);
  INFO(o.err);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("GEMM fp32") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(test::slurp(dir / "r.json"));
  CHECK(j["format"] == "possim-roofline-1");
  REQUIRE(j["gemm"].size() == 1);
  const auto& g = j["gemm"][0];
  CHECK(g["precision"] == "fp32");
  CHECK(g["flops"].get<double>() == 2.0 * 128 * 128 * 128);
  CHECK(g["median_s"].get<double>() > 0);
  CHECK(g["flops_per_s"].get<double>() == Approx(g["flops"].get<double>() / g["median_s"].get<double>()));
  const auto& c = j["device_copy"];
  CHECK(c["bytes"].get<double>() == 2.0 * 1048576);
  CHECK(c["bytes_per_s_read_plus_write"].get<double>() ==
        Approx(2 * c["bytes"].get<double>() / c["median_s"].get<double>()));
  // The CPU does fp32 only; the GPU without a device says so (exit 1, one line).
  CHECK(test::run_possim("calibrate roofline --precisions bf16", dir, 60).status == 2);
  CHECK(test::run_possim("calibrate roofline --precisions fp32,,bf16", dir, 60).status == 2);
  if (gpu_device_count() == 0) {
    const test::Output gpu = test::run_possim("calibrate roofline --backend gpu", dir, 60);
    CHECK(gpu.status == 1);
    CHECK((gpu.err.find("no CUDA device") != std::string::npos || gpu.err.find("GPU backend not built") != std::string::npos));
  }
}

namespace {

// The CPU backend with every prepared layer's call and every synchronize written to `log`
// ("F2": layer 2's forward waited for, "f2": launched only; "B"/"b" backward; "S": a wait;
// "M": a mark between passes).
class LoggingBackend final : public KernelBackend {
 public:
  explicit LoggingBackend(std::vector<std::string>& log)
      : inner_(make_backend("cpu", calibrate::Precision::fp32, 1)), log_(log) {}
  std::string name() const override { return inner_->name(); }
  std::string device() const override { return inner_->device(); }
  nlohmann::json describe() const override { return inner_->describe(); }
  LayerMeasurement time_layer(const Layer& l, int batch, bool g, const TimingPolicy& p) override {
    return inner_->time_layer(l, batch, g, p);
  }
  std::unique_ptr<PreparedLayer> prepare_layer(const Layer& l, int batch, bool g) override {
    return std::make_unique<Logged>(inner_->prepare_layer(l, batch, g), std::to_string(prepared_++), log_);
  }
  std::unique_ptr<PreparedLayer> prepare_rebuild(std::int64_t m, std::int64_t n, std::int64_t k) override {
    return inner_->prepare_rebuild(m, n, k);
  }
  KernelTime time_rebuild(std::int64_t m, std::int64_t n, std::int64_t k, const TimingPolicy& p) override {
    return inner_->time_rebuild(m, n, k, p);
  }
  std::vector<CopyPoint> time_copies(const std::vector<double>& s, const TimingPolicy& p) override {
    return inner_->time_copies(s, p);
  }
  KernelTime time_device_copy(double bytes, const TimingPolicy& p) override { return inner_->time_device_copy(bytes, p); }
  bool copies_cross_a_bus() const override { return inner_->copies_cross_a_bus(); }
  void synchronize() override { log_.push_back("S"); }
  void mark() override { log_.push_back("M"), KernelBackend::mark(); }  // the host clock: the CPU runs each launch

 private:
  struct Logged final : PreparedLayer {
    Logged(std::unique_ptr<PreparedLayer> in, std::string id, std::vector<std::string>& log)
        : in_(std::move(in)), id_(std::move(id)), log_(log) {}
    void forward() override { log_.push_back("F" + id_), in_->forward(); }
    void backward() override { log_.push_back("B" + id_), in_->backward(); }
    void launch_forward() override { log_.push_back("f" + id_), in_->launch_forward(); }
    void launch_backward() override { log_.push_back("b" + id_), in_->launch_backward(); }
    double bytes() const override { return in_->bytes(); }
    std::unique_ptr<PreparedLayer> in_;
    std::string id_;
    std::vector<std::string>& log_;
  };
  std::unique_ptr<KernelBackend> inner_;
  std::vector<std::string>& log_;
  int prepared_ = 0;
};

}  // namespace

TEST_CASE("whole steps run every layer forward then backward in reverse each pass waited for and back to back",
          "[calibrate]") {
  const Network net = make_zoo_network("cifar10_quick");
  std::vector<std::string> log;
  LoggingBackend backend(log);
  KernelRunOptions opt;
  opt.timing = {1, 1};  // one warm-up step of each kind, then the repeats
  opt.copy_sizes_bytes.clear();
  opt.step_repeats = 3;
  const KernelCalibration cal = calibrate_kernels(net, 4, backend, opt);

  // Every step of either kind: forward 0..n-1, backward n-1..0, one wait; the kinds in turn;
  // a back-to-back step marks its start and the end of every pass.
  const std::size_t n = net.layers.size();
  std::vector<std::string> want;
  for (int step = 0; step < 2 * (1 + opt.step_repeats); ++step) {
    const bool waited = step % 2 == 0;
    if (!waited) want.push_back("M");
    for (std::size_t i = 0; i < n; ++i) {
      want.push_back((waited ? "F" : "f") + std::to_string(i));
      if (!waited) want.push_back("M");
    }
    for (std::size_t i = n; i-- > 0;) {
      want.push_back((waited ? "B" : "b") + std::to_string(i));
      if (!waited) want.push_back("M");
    }
    want.push_back("S");
  }
  CHECK(log == want);
  // Each pass's time in the queue, per layer: on the CPU, where a launch runs the pass, the
  // passes fill the step up to the launch before the first mark and the final wait.
  REQUIRE(cal.step.queued_forward_s.size() == n);
  REQUIRE(cal.step.queued_backward_s.size() == n);
  double passes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(cal.step.queued_forward_s[i] >= 0);
    CHECK(cal.step.queued_backward_s[i] >= 0);
    passes += cal.step.queued_forward_s[i] + cal.step.queued_backward_s[i];
  }
  CHECK(passes > 0.5 * cal.step.back_to_back_min_s);
  CHECK(passes < 2 * cal.step.back_to_back_s);

  REQUIRE(cal.step.repeats == 3);
  double sum = 0;
  for (const LayerMeasurement& m : cal.layers) sum += m.forward_s() + m.backward_s();
  CHECK(cal.step.kernels_sum_s == Approx(sum).epsilon(1e-12));
  // A step runs the same kernels as the layers timed one by one: on a CPU, about as long.
  for (const double s : {cal.step.waited_s, cal.step.back_to_back_s}) {
    CHECK(s > 0.3 * sum);
    CHECK(s < 5 * sum);
  }
  CHECK(cal.step.waited_min_s <= cal.step.waited_s);
  CHECK(cal.step.back_to_back_min_s <= cal.step.back_to_back_s);

  // Written into the sidecar and read back from it.
  const Profile base = load_profile("titanx_maxwell");
  const nlohmann::json side = kernel_sidecar(cal, base);
  REQUIRE(side.contains("step"));
  const KernelCalibration back = recorded_calibration(side, net, "sidecar");
  CHECK(back.step.repeats == 3);
  CHECK(back.step.waited_s == cal.step.waited_s);
  CHECK(back.step.back_to_back_min_s == cal.step.back_to_back_min_s);
  CHECK(back.step.kernels_sum_s == Approx(sum).epsilon(1e-12));
  CHECK(back.step.queued_forward_s == cal.step.queued_forward_s);
  CHECK(back.step.queued_backward_s == cal.step.queued_backward_s);
  CHECK(side["step"]["queued_layers"][1]["layer"] == net.layers[1].name);
  nlohmann::json bad = side;
  bad["step"]["waited_s"] = -1;
  CHECK_THROWS_WITH(recorded_calibration(bad, net, "sidecar"), Catch::Contains("step.waited_s"));
  bad = side;
  bad["step"]["queued_layers"][2]["layer"] = "conv9";
  CHECK_THROWS_WITH(recorded_calibration(bad, net, "sidecar"), Catch::Contains("step.queued_layers[2].layer"));
  bad = side;
  bad["step"]["queued_layers"][0]["backward_s"] = -1e-3;
  CHECK_THROWS_WITH(recorded_calibration(bad, net, "sidecar"), Catch::Contains("step.queued_layers[0].backward_s"));
  bad = side;
  bad["step"]["queued_layers"].erase(0);
  CHECK_THROWS_WITH(recorded_calibration(bad, net, "sidecar"), Catch::Contains("step.queued_layers"));

  // Scaled to its queued step, each layer takes its own passes' time in the queue, and each
  // kind's rate its FLOPs over those seconds.
  KernelCalibration queued = back;
  scale_to_queued_step(queued, "sidecar");
  std::map<LayerKind, std::pair<double, double>> kind;  // FLOPs, queued seconds
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(queued.measured.layers[i].forward_s == cal.step.queued_forward_s[i]);
    CHECK(queued.measured.layers[i].backward_s == cal.step.queued_backward_s[i]);
    auto& k = kind[net.layers[i].kind];
    k.first += 4 * (net.layers[i].fwd_flops + net.layers[i].bwd_flops);  // batch 4
    k.second += cal.step.queued_forward_s[i] + cal.step.queued_backward_s[i];
  }
  for (const auto& [k, rate] : queued.kind_flops_per_s)
    CHECK(rate == Approx(kind[k].first / kind[k].second).epsilon(1e-9));
  CHECK(queued.queued_step_scale == Approx(passes / sum).epsilon(1e-12));
  CHECK(calibrated_profile(base, queued, "q").measured.back().source.find("time between marks around each pass") !=
        std::string::npos);

  // Not every layer timed: no step.
  KernelRunOptions part = opt;
  part.max_layers = 2;
  CHECK(calibrate_kernels(net, 4, backend, part).step.repeats == 0);
}
