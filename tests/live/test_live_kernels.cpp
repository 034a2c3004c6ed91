// Kernel compute in the live engine (live/kernel_stream.hpp): each layer's pass runs the
// kernel backends' real kernels, prepared once (kernels/kernel_backend.hpp). Checked with
// the CPU backend, which runs everywhere; the GPU backend's plugin is built here but this
// machine has no device, so its path is checked to fail clearly, naming the GPU.
#include <catch2/catch.hpp>
#include <chrono>
#include <algorithm>
#include <functional>
#include <set>

#include "live/live_settings.hpp"
#include "kernels/kernel_backend.hpp"
#include "calibrate/kernels.hpp"
#include "support/fixtures.hpp"
#include "live/live_engine.hpp"
#include "model/input/scenario.hpp"
#include "model/workload/zoo.hpp"
#include "sim/simgrid_engine.hpp"

using namespace possim;
using namespace possim::test;
using namespace possim::calibrate;
using Approx = Catch::Detail::Approx;

namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A live engine over loopback whose GPUs run `net`'s kernels on `backend`.
live::LiveEngine kernel_engine(const Network& net, const std::string& backend) {
  live::LiveOptions o;
  o.launch.netns = false;
  o.launch.kernels.net = &net;
  o.launch.kernels.backend = backend;
  return live::LiveEngine(o);
}

}  // namespace

TEST_CASE("a prepared layer holds its buffers and runs the kernels time_layer times, for every "
          "layer kind", "[calibrate][live]") {
  auto backend = make_backend("cpu", calibrate::Precision::fp32, 1);
  std::set<LayerKind> seen;
  for (const char* model : {"cifar10_quick", "alexnet", "googlenet", "resnet50"}) {
    const Network net = make_zoo_network(model);
    const std::vector<bool> grad = needs_input_grad(net);
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const Layer& l = net.layers[i];
      if (seen.count(l.kind)) continue;
      seen.insert(l.kind);
      INFO(model << " " << l.name);
      const auto p = backend->prepare_layer(l, 2, grad[i]);
      // At least its input and output (and for conv and fc, weights and their gradient).
      const double io = 4.0 * 2 * double(l.in.elements() + l.out.elements());
      CHECK(p->bytes() >= io + 2 * 4.0 * double(l.weight_params));
      CHECK(p->bytes() < 100 * io + 20 * 4.0 * double(l.weight_params) + 1e6);
      p->forward();
      p->backward();
    }
  }
  CHECK(seen.size() == 10);
  const auto rebuild = backend->prepare_rebuild(64, 128, 8);
  CHECK(rebuild->bytes() == 4.0 * (64 * 8 + 8 * 128 + 64 * 128));
  rebuild->forward();

  // The same work as time_layer's: an FC layer large enough to time (2 x 64 x 1024 x 2048
  // FLOP a kernel), its prepared passes against time_layer's, interleaved so that both see
  // the same load on this shared machine, the fastest of 7 each (robust to preemption).
  // One kernel forward, two backward (data and filter: twice the work): a pass that ran
  // nothing, or one kernel too few, falls below the bounds below on every try. Above, only
  // a pass 5x too slow fails: beside a CI build the prepared passes ran 2-4.5x
  // time_layer's for all 7 samples of a try (forward 0.0142 s against 0.0031), so an
  // upper bound of 2x (one kernel too many) failed half the runs. A try out of bounds is
  // measured again, up to 3 times.
  const Layer fc = fc_layer("fc", 1024, 2048);
  const auto p = backend->prepare_layer(fc, 64, true);
  double fp = 0, ft = 0, bp = 0, bt = 0;
  const auto in_bounds = [&] { return fp > 0.5 * ft && fp < 5.0 * ft && bp > 0.5 * bt && bp < 5.0 * bt; };
  for (int attempt = 0; attempt < 3 && (attempt == 0 || !in_bounds()); ++attempt) {
    std::vector<double> f, b, tf, tb;
    for (int k = 0; k < 7; ++k) {
      const LayerMeasurement m = backend->time_layer(fc, 64, true, TimingPolicy{k == 0 ? 1 : 0, 1});
      REQUIRE(m.forward.size() == 1);
      REQUIRE(m.backward.size() == 2);
      tf.push_back(m.forward_s());
      tb.push_back(m.backward_s());
      f.push_back(seconds_of([&] { p->forward(); }));
      b.push_back(seconds_of([&] { p->backward(); }));
    }
    fp = *std::min_element(f.begin(), f.end());
    ft = *std::min_element(tf.begin(), tf.end());
    bp = *std::min_element(b.begin(), b.end());
    bt = *std::min_element(tb.begin(), tb.end());
  }
  INFO("forward " << fp << " s vs " << ft << " s; backward " << bp << " s vs " << bt << " s");
  CHECK(fp > 0.5 * ft);
  CHECK(fp < 5.0 * ft);
  CHECK(bp > 0.5 * bt);
  CHECK(bp < 5.0 * bt);
  // time_layer's backward is the two kernels: against the fastest forward seen, as
  // time_layer's own forward is the first run on buffers it has just built (no warm-up
  // after the first try) and came out 39% slower than the prepared one in a CI run
  // (0.00312 s against 0.00225 s), more than its backward / 1.3.
  CHECK(bt > 1.3 * std::min(ft, fp));
}

TEST_CASE("kernel compute: a live run's GPUs take the real kernels' time, not the plan's", "[live]") {
  const Network net = make_zoo_network("cifar10_quick");
  const int batch = 16;
  // What the kernels of one iteration take on this machine (the CPU backend's medians).
  auto backend = make_backend("cpu", calibrate::Precision::fp32, 1);
  KernelRunOptions ko;
  ko.timing = TimingPolicy{1, 3};
  ko.copy_sizes_bytes = {4096};
  const KernelCalibration cal = calibrate_kernels(net, batch, *backend, ko);
  double kernels_s = 0;
  for (const LayerMeasurement& m : cal.layers) kernels_s += m.forward_s() + m.backward_s();
  REQUIRE(kernels_s > 0);

  // A profile whose GPU is 50 times faster than these kernels: emulated compute would take
  // a fiftieth of the time.
  Profile prof = flat_profile();
  const Result flat = sim::SimGridEngine().run(make_plan("single", request(net, prof, 1, 10, batch, 2)), {});
  prof.peak_flops_per_s *= flat.gpu_busy_s * 50 / kernels_s;

  const live::LiveEngine engine = kernel_engine(net, "cpu");
  // Poseidon's FC layers go by SFB here (BestScheme): their rebuild GEMMs run for real too.
  for (const std::string strategy : {"ps", "wfbp", "poseidon"}) {
    INFO(strategy << ": kernels " << kernels_s << " s an iteration");
    const SyncPlan plan = make_plan(strategy, request(net, prof, 2, 10, batch, 3));
    if (strategy == "poseidon")
      REQUIRE(std::any_of(plan.tasks.begin(), plan.tasks.end(), [](const Task& t) { return std::string(t.display_label()) == "rebuild"; }));
    const Result sim = sim::SimGridEngine().run(plan, {});
    REQUIRE(sim.gpu_busy_s == Approx(kernels_s / 50).epsilon(0.05));
    const Result live = engine.run(plan, {});
    INFO("live GPU busy " << live.gpu_busy_s << " s, iteration " << live.iteration_s << " s");
    // Two node processes on this machine's cores, next to other tests: slower than the
    // calibration's medians at times, never a fiftieth of them.
    CHECK(live.gpu_busy_s > 0.6 * kernels_s);
    CHECK(live.gpu_busy_s < 5.0 * kernels_s);
    // The median iteration against the mean GPU time of one: never much below it. Loose:
    // one iteration's kernels preempted by other tests lift the mean and not the median
    // (a CI run beside a build: 0.0443 s against 0.0558 s, 0.79).
    CHECK(live.iteration_s >= 0.7 * live.gpu_busy_s);
    CHECK(live.breakdown.total() == Approx(live.iteration_s).epsilon(1e-6));
  }
}

TEST_CASE("kernel compute on a GPU backend that cannot run here ends the run naming the GPU and "
          "why", "[live]") {
  const Network net = make_zoo_network("cifar10_quick");
  const Profile prof = flat_profile();
  const live::LiveEngine engine = kernel_engine(net, "gpu");
  const SyncPlan plan = make_plan("ps", request(net, prof, 2, 10, 8, 2));
  bool gpu_here = true;
  try {
    make_backend("gpu", calibrate::Precision::fp32, 1);
  } catch (const BackendUnavailable&) {
    gpu_here = false;
  }
  // A local run spreads its nodes over the devices the plugin counts.
  CHECK((gpu_device_count() > 0) == gpu_here);
  if (gpu_here) {
    CHECK(engine.run(plan, {}).iteration_s > 0);
    return;
  }
  try {
    engine.run(plan, {});
    FAIL("a live run with the GPU backend and no GPU did not fail");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("GPU 0") != std::string::npos);
    CHECK(what.find("gpu kernel backend") != std::string::npos);
    CHECK((what.find("no CUDA device") != std::string::npos || what.find("not built") != std::string::npos ||
           what.find("cannot be loaded") != std::string::npos));
  }
}

TEST_CASE("scenario: \"compute\": \"kernels\" takes a kernel backend (a kernel backend without it, or "
          "time dilation with it, is refused)", "[scenario][live]") {
  const auto scenario = [](const std::string& live) {
    return parse_scenario(R"({"model": "cifar10_quick", "batch_per_gpu": 8, "cluster": {"nodes": 2, "nic_gbps": 1},
      "strategies": ["ps"], "profile": "titanx_maxwell", "live": )" + live + "}",
                          "dir/kernels.json", "dir");
  };
  const Scenario s = scenario(R"({"compute": "kernels", "kernel_backend": "cpu"})");
  CHECK(live::live_settings(s).kernels);
  CHECK_FALSE(live::live_settings(s).arithmetic);
  CHECK(live::live_settings(s).kernel_backend == "cpu");
  CHECK(live::live_settings(scenario(R"({"compute": "kernels"})")).kernel_backend == "gpu");
  CHECK_FALSE(live::live_settings(scenario(R"({"compute": "emulated"})")).kernels);
  CHECK(input_error([&] { scenario(R"({"kernel_backend": "cpu"})"); }).find("live.kernel_backend") !=
        std::string::npos);
  CHECK(input_error([&] { scenario(R"({"compute": "kernels", "kernel_backend": "tpu"})"); })
            .find("live.kernel_backend") != std::string::npos);
  CHECK(input_error([&] { scenario(R"({"compute": "kernels", "time_dilation": 2})"); })
            .find("live.time_dilation") != std::string::npos);
  CHECK(input_error([&] { scenario(R"({"compute": "kernels", "time_dilation": "auto"})"); })
            .find("live.time_dilation") != std::string::npos);
}

TEST_CASE("kernel compute refuses a model whose layers would not fit in memory, by layer, before "
          "allocating", "[live]") {
  const Network net = make_zoo_network("vgg19");
  const Profile prof = flat_profile();
  const live::LiveEngine engine = kernel_engine(net, "cpu");
  // Batch 4096: conv1_1's input, output and gradients alone are ~100 GB, over any share of
  // this machine's memory.
  const SyncPlan plan = make_plan("ps", request(net, prof, 2, 10, 4096, 2));
  try {
    engine.run(plan, {});
    FAIL("no refusal");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("layer 'conv1_1' of vgg19 at batch 4096") != std::string::npos);
    CHECK(what.find("MiB allowed") != std::string::npos);
  }
}
