// Error bars from a fit: the covariance a fitted profile keeps (written, read back, refused
// where it is not one), its sigma points, and the interval each engine propagates, held to
// hand calculations where the prediction is log-linear in a parameter.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "calibrate/cluster_fit.hpp"
#include "calibrate/profile_json.hpp"
#include "calibrate/uncertainty.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/error.hpp"
#include "model/input/profile_derive.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/result_io.hpp"
#include "model/run/sweep.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using namespace possim::calibrate;
namespace fs = std::filesystem;
using Approx = Catch::Detail::Approx;

namespace {

FitCovariance covariance(std::vector<std::string> names, std::vector<std::vector<double>> c) {
  FitCovariance f;
  f.parameters = std::move(names);
  f.log_covariance = std::move(c);
  f.source = "a test";
  return f;
}

// A scenario on the shipped titanx_maxwell profile (its stacks), with `cov` set on it.
// compute_only: no fixed framework cost per iteration (per_iteration_s), so that one GPU's
// iteration is its layers' time alone.
Scenario scenario(const std::string& strategies, const std::string& nodes, const FitCovariance& cov,
                  bool compute_only = false, const std::string& model = "alexnet", int batch = 128) {
  const std::string text = R"({"name": "u", "model": ")" + model + R"(", "batch_per_gpu": )" + std::to_string(batch) +
                           R"(, "cluster": {"nodes": )" + nodes +
                           R"(, "gpus_per_node": 1, "nic_gbps": [10], "latency_s": 50e-6,
      "servers": {"shards": "per_node", "placement": "colocated"}},
    "strategies": )" + strategies + R"(, "profile": "titanx_maxwell", "iterations": 4, "seed": 1})";
  Scenario s = parse_scenario(text, "u.json", ".");
  Profile p = s.profile;
  p.fit_covariance = cov;
  if (compute_only) {
    p.per_iteration_s = 0;
    for (auto& [name, stack] : p.stacks) stack.params.erase("per_iteration_s");
  }
  return with_profile(s, p);
}

std::string edited(const Profile& p, const std::function<void(nlohmann::ordered_json&)>& edit) {
  nlohmann::ordered_json j = profile_to_json(p);
  edit(j);
  return j.dump();
}

}  // namespace

TEST_CASE("a profile's fit covariance is written, read back, and refused where it is not a covariance",
          "[uncertainty]") {
  Profile p = load_profile("titanx_maxwell");
  p.fit_covariance = covariance({"tcp_goodput", "compute_scale", "caffe_ps.step_sync_s"},
                                {{0.01, 0.002, 0}, {0.002, 0.04, 0}, {0, 0, 0.09}});
  const Profile back = parse_profile(profile_to_json(p).dump(), "p.json");
  CHECK(back.fit_covariance.parameters == p.fit_covariance.parameters);
  CHECK(back.fit_covariance.log_covariance == p.fit_covariance.log_covariance);
  CHECK(back.fit_covariance.source == "a test");
  // Without one (a derived profile not fitted since), the file has no such field.
  CHECK_FALSE(profile_to_json(load_profile("h200")).contains("fit_covariance"));

  const auto refused = [&](const std::function<void(nlohmann::ordered_json&)>& edit, const std::string& field) {
    try {
      parse_profile(edited(p, edit), "p.json");
      FAIL("accepted: " << field);
    } catch (const InputError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("fit_covariance" + field) != std::string::npos);
    }
  };
  refused([](auto& j) { j["fit_covariance"]["log_covariance"][0][1] = 0.003; }, ".log_covariance[1][0]");
  refused([](auto& j) { j["fit_covariance"]["log_covariance"].erase(2); }, ".log_covariance");
  refused([](auto& j) { j["fit_covariance"]["log_covariance"][1].erase(0); }, ".log_covariance[1]");
  refused([](auto& j) { j["fit_covariance"]["log_covariance"][0][0] = -0.01; }, ".log_covariance[0][0]");
  refused([](auto& j) { j["fit_covariance"]["log_covariance"][2][2] = "x"; }, ".log_covariance[2][2]");
  refused([](auto& j) { j["fit_covariance"]["parameters"][0] = "nic_gbps"; }, ".parameters[0]");
  refused([](auto& j) { j["fit_covariance"]["parameters"][2] = "nostack.step_sync_s"; }, ".parameters[2]");
  refused([](auto& j) { j["fit_covariance"]["parameters"][1] = "tcp_goodput"; }, ".parameters[1]");
  refused([](auto& j) { j["fit_covariance"]["extra"] = 1; }, "");
  // |c_01| above sqrt(c_00 c_11): no covariance has it.
  refused(
      [](auto& j) {
        j["fit_covariance"]["log_covariance"][0][1] = 0.03;
        j["fit_covariance"]["log_covariance"][1][0] = 0.03;
      },
      ".log_covariance[1][0]");
}

TEST_CASE("sigma points rebuild the covariance, and a figure's interval is its log-slope by hand",
          "[uncertainty]") {
  // Log-linear (12.5 and 8 around 10, ln 1.25 = -ln 0.8): symmetric in log space.
  const auto [lo, hi] = interval_of(10, {12.5}, {8});
  CHECK(lo == Approx(10 * std::exp(-1.96 * std::log(1.25))));
  CHECK(hi == Approx(10 * std::exp(1.96 * std::log(1.25))));
  // Two axes add in quadrature, up and down apart; an axis that only slows the figure (a
  // kink: 10 on one side) widens only the lower side.
  const auto [lo2, hi2] = interval_of(10, {12, 10}, {9, 8});
  CHECK(lo2 == Approx(10 * std::exp(-1.96 * std::hypot(std::log(10 / 9.0), std::log(10 / 8.0)))));
  CHECK(hi2 == Approx(10 * std::exp(1.96 * std::log(1.2))));
  const auto [lo3, hi3] = interval_of(10, {10}, {7});
  CHECK(hi3 == 10);
  CHECK(lo3 == Approx(10 * std::pow(0.7, 1.96)));

  // The axes' steps add up to the covariance: sum over axes of step step^T = C.
  const std::vector<std::vector<double>> c = {{0.04, 0.012, -0.003}, {0.012, 0.01, 0.0}, {-0.003, 0.0, 0.0225}};
  const Scenario s = scenario(R"(["ps"])", "[2]",
                              covariance({"compute_scale", "tcp_goodput", "caffe_ps.server_apply_bytes_per_s"}, c));
  const SigmaAxes axes = sigma_axes(s);
  REQUIRE(axes.parameters.size() == 3);
  REQUIRE(axes.steps.size() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) {
      double sum = 0;
      for (const auto& step : axes.steps) sum += step[i] * step[j];
      CHECK(sum == Approx(c[i][j]).margin(1e-14));
    }
  CHECK(axes.reruns() == 6);

  // A matrix whose every pair is a covariance but which is not one as a whole.
  const Scenario bad = scenario(R"(["ps"])", "[2]",
                                covariance({"compute_scale", "tcp_goodput", "pcie_bytes_per_s"},
                                           {{1, 0.9, 0.9}, {0.9, 1, -0.9}, {0.9, -0.9, 1}}));
  CHECK_THROWS_AS(sigma_axes(bad), InputError);
}

TEST_CASE("a run reads only the fitted parameters of the stacks it runs on", "[uncertainty]") {
  const FitCovariance c = covariance(
      {"tcp_host_bytes_per_s", "server_apply_bytes_per_s", "caffe_ps.step_sync_s", "tf_stock.runtime_copy_bytes_per_s",
       "runtime_copy_bytes_per_s"},
      {{0.1, 0, 0, 0, 0}, {0, 0.1, 0, 0, 0}, {0, 0, 0.1, 0, 0}, {0, 0, 0, 0.1, 0}, {0, 0, 0, 0, 0.1}});
  // ps runs on caffe_ps (which sets its own server apply rate), the reference on caffe.
  CHECK(parameters_read(scenario(R"(["ps"])", "[2]", c)) ==
        std::vector<std::string>{"tcp_host_bytes_per_s", "server_apply_bytes_per_s", "caffe_ps.step_sync_s",
                                 "runtime_copy_bytes_per_s"});
  // tf_stock sets its own runtime copy rate, so only its stack's entry is read (caffe still reads the top level).
  const std::vector<std::string> tf = parameters_read(scenario(R"(["tf_stock"])", "[2]", c));
  CHECK(std::find(tf.begin(), tf.end(), "tf_stock.runtime_copy_bytes_per_s") != tf.end());
  CHECK(std::find(tf.begin(), tf.end(), "caffe_ps.step_sync_s") == tf.end());
  // A parameter nothing reads costs no rerun.
  const Scenario none = scenario(R"(["wfbp"])", "[2]", covariance({"caffe_ps.step_sync_s"}, {{0.1}}));
  CHECK(sigma_axes(none).empty());
}

TEST_CASE("each engine's interval of a compute-bound point is the compute scale's, by hand", "[uncertainty][sim]") {
  // One GPU: the iteration is compute over compute_scale, log-linear with slope -1, so the
  // interval of iteration_s is exp(-/+ 1.96 sigma) around it exactly, and images/s the reverse.
  const double var = 0.0144;  // sigma = 12% in log space
  const Scenario s = scenario(R"(["single", "ps"])", "[1, 4]", covariance({"compute_scale"}, {{var}}), true);
  for (const char* name : {"analytic", "simgrid"}) {
    INFO(name);
    EngineRequest request;
    request.quiet = true;
    const auto engine = make_engine(name, request);
    std::vector<Result> results = run_sweep(s, *engine, 2);
    const SigmaAxes axes = sigma_axes(s);
    REQUIRE(axes.steps.size() == 1);
    CHECK(std::fabs(axes.steps[0][0]) == Approx(std::sqrt(var)));
    std::vector<std::vector<Result>> plus, minus;
    plus.push_back(run_sweep(perturbed(s, axes.parameters, axes.steps[0]), *engine, 2));
    minus.push_back(run_sweep(perturbed(s, axes.parameters, {-axes.steps[0][0]}), *engine, 2));
    attach_intervals(results, plus, minus);
    const Result& single = results.front();
    REQUIRE(single.strategy == "single");
    REQUIRE(single.interval);
    const double k = std::exp(1.96 * std::sqrt(var));
    CHECK(single.interval->iteration_s_lo == Approx(single.iteration_s / k).epsilon(1e-9));
    CHECK(single.interval->iteration_s_hi == Approx(single.iteration_s * k).epsilon(1e-9));
    CHECK(single.interval->images_per_s_lo == Approx(single.images_per_s / k).epsilon(1e-9));
    CHECK(single.interval->images_per_s_hi == Approx(single.images_per_s * k).epsilon(1e-9));
    // The speedup over one GPU does not move with a compute speed both share.
    CHECK(single.interval->speedup_lo == Approx(1.0));
    CHECK(single.interval->speedup_hi == Approx(1.0));
    // A PS point: the network does not scale with compute, so the interval is narrower than
    // compute's and still holds the prediction.
    for (const Result& r : results) {
      REQUIRE(r.interval);
      CHECK(r.interval->iteration_s_lo <= r.iteration_s);
      CHECK(r.interval->iteration_s_hi >= r.iteration_s);
      CHECK(r.interval->iteration_s_hi / r.iteration_s <= k * (1 + 1e-9));
    }
    const Result& ps4 = results.back();
    REQUIRE(ps4.cluster.nodes == 4);
    CHECK(ps4.interval->iteration_s_hi / ps4.iteration_s < k * 0.99);
    CHECK(ps4.interval->speedup_hi > ps4.speedup);
  }
}

TEST_CASE("a result's interval survives results.json, and an edited one is refused", "[uncertainty]") {
  const Scenario s = scenario(R"(["single"])", "[1]", covariance({"compute_scale"}, {{0.01}}));
  std::vector<Result> results = run_sweep(s, AnalyticEngine());
  attach_intervals(results, {run_sweep(perturbed(s, {"compute_scale"}, {0.1}), AnalyticEngine())},
                   {run_sweep(perturbed(s, {"compute_scale"}, {-0.1}), AnalyticEngine())});
  REQUIRE(results[0].interval);
  nlohmann::json j = result_to_json(results[0]);
  const Result back = result_from_json(j);
  REQUIRE(back.interval);
  CHECK(back.interval->images_per_s_hi == results[0].interval->images_per_s_hi);
  CHECK(results_csv(results).find("iteration_s_lo,iteration_s_hi,images_per_s_lo") != std::string::npos);
  // Without an interval, the CSV keeps its columns.
  results[0].interval.reset();
  CHECK(results_csv(results).find("_lo") == std::string::npos);
  j["iteration_s_lo"] = 2 * j["iteration_s"].get<double>();
  CHECK_THROWS_AS(result_from_json(j), InputError);
  j.erase("iteration_s_lo");
  CHECK_THROWS_AS(result_from_json(j), InputError);
}

TEST_CASE("a fit keeps its determined parameters' covariance and the base's for the rest", "[uncertainty]") {
  ClusterFit f;
  f.names = {"tcp_goodput", "compute_scale", "per_message_s"};
  f.values = {0.8, 1.1, 1e-4};
  f.sigma = {0.08, 0.011, std::numeric_limits<double>::infinity()};
  f.lm.at_bound = {0, 0, 0};
  f.lm.residual_variance = 1e-4;
  f.lm.log_covariance = {{0.01, 0.0005, 0}, {0.0005, 0.0001, 0}, {0, 0, 1e30}};
  f.points.resize(6);
  Profile base = load_profile("titanx_maxwell");
  base.fit_covariance = covariance({"compute_scale", "caffe_ps.step_sync_s"}, {{0.09, 0.01}, {0.01, 0.04}});
  const FitCovariance c = merged_covariance(base, f, "m.csv", "analytic");
  // The base's compute_scale is refitted here: this fit's value replaces it; step_sync_s is kept.
  REQUIRE(c.parameters == std::vector<std::string>{"caffe_ps.step_sync_s", "tcp_goodput", "compute_scale"});
  CHECK(c.log_covariance[0][0] == 0.04);
  CHECK(c.log_covariance[0][1] == 0);  // between the fits: unknown, taken as 0
  CHECK(c.log_covariance[1][1] == 0.01);
  CHECK(c.log_covariance[1][2] == 0.0005);
  CHECK(c.log_covariance[2][2] == 0.0001);
  CHECK(c.source.find("left out: per_message_s") != std::string::npos);
  CHECK(c.source.find("a test") != std::string::npos);
  // As many points as parameters: no estimate of the scatter, so no covariance at all.
  // A stack the base no longer has takes its entries with it.
  Profile stackless = base;
  stackless.stacks.clear();
  stackless.default_stacks.clear();
  CHECK(merged_covariance(stackless, f, "m.csv", "analytic").parameters ==
        std::vector<std::string>{"tcp_goodput", "compute_scale"});
  f.lm.residual_variance = 0;
  stackless.fit_covariance = {};
  CHECK(merged_covariance(stackless, f, "m.csv", "analytic").empty());
  // A derived profile's compute is a roofline guess with no error bar: no covariance.
  CHECK(derive_profile(base, load_device_sheet("titanx_maxwell"), load_device_sheet("v100"), "v").fit_covariance.empty());
}

TEST_CASE("possim calibrate fit --predict SCENARIO, and possim run on the fitted profile, print 95% intervals",
          "[uncertainty][cli]") {
  const auto dir = test::scratch("uncertainty", "cli");
  // Points a small campaign measures (times made by possim, 2% scatter written into them).
  std::ofstream(dir / "measured.csv") << "model,strategy,nodes,nic_gbps,batch,iteration_s\n"
                                         "alexnet,single,1,10,128,0.428\n"
                                         "alexnet,wfbp,2,10,128,0.61\n"
                                         "alexnet,wfbp,4,10,128,0.83\n"
                                         "alexnet,wfbp,4,40,128,0.47\n"
                                         "alexnet,wfbp,8,10,128,0.95\n"
                                         "alexnet,wfbp,8,40,128,0.52\n";
  std::ofstream(dir / "predict.json") << R"({
    "name": "unmeasured", "model": "alexnet", "batch_per_gpu": 128,
    "cluster": {"nodes": [16, 32], "gpus_per_node": 1, "nic_gbps": [25], "latency_s": 50e-6,
                "servers": {"shards": "per_node", "placement": "colocated"}},
    "strategies": ["wfbp"], "profile": "titanx_maxwell", "iterations": 4, "seed": 1})";
  const test::Output o = test::run_possim(
      "calibrate fit measured.csv --profile titanx_maxwell --engine analytic --free tcp_goodput,compute_scale "
      "--out fitted.json --predict predict.json --restarts 1",
      dir);
  INFO(o.err << o.out);
  REQUIRE(o.status == 0);
  CHECK(o.out.find("predicted, not fitted (predict.json, on the fitted profile fitted)") != std::string::npos);
  // The base's own fit (titanx_maxwell's five) is kept beside this one's two; wfbp on
  // poseidon_caffe reads two of the five.
  CHECK(o.out.find("95% intervals: profile fitted's fit covariance of tcp_host_bytes_per_s, server_apply_bytes_per_s, "
                   "tcp_goodput, compute_scale (the fitted parameters this scenario reads)") != std::string::npos);
  const Profile fitted = load_profile((dir / "fitted.json").string());
  const Profile titanx = load_profile("titanx_maxwell");
  std::vector<std::string> expected = titanx.fit_covariance.parameters;
  expected.insert(expected.end(), {"tcp_goodput", "compute_scale"});
  REQUIRE(fitted.fit_covariance.parameters == expected);
  CHECK(fitted.fit_covariance.log_covariance[0][0] == titanx.fit_covariance.log_covariance[0][0]);
  CHECK(fitted.fit_covariance.log_covariance[0][5] == 0);
  std::ifstream side(dir / "fitted.calibration.json");
  const auto j = nlohmann::json::parse(side);
  const auto& predicted = j.at("predicted_scenario").at("results");
  REQUIRE(predicted.size() == 2);
  for (const auto& r : predicted) {
    CHECK(r.at("images_per_s_lo").get<double>() < r.at("images_per_s").get<double>());
    CHECK(r.at("images_per_s_hi").get<double>() > r.at("images_per_s").get<double>());
  }

  // The same scenario run on the fitted profile gives the same figures and intervals.
  std::ifstream in(dir / "predict.json");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  text.replace(text.find("titanx_maxwell"), 14, "fitted.json");
  std::ofstream(dir / "run.json") << text;
  const test::Output run = test::run_possim("run run.json --engine analytic --out res", dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(run.out.find("95% interval") != std::string::npos);
  std::ifstream rj(dir / "res" / "results.json");
  const auto results = nlohmann::json::parse(rj);
  CHECK(results.at("uncertainty").at("parameters").size() == 4);
  for (std::size_t i = 0; i < 2; ++i)
    for (const char* k : {"images_per_s", "images_per_s_lo", "images_per_s_hi", "iteration_s_lo"})
      CHECK(results.at("results").at(i).at(k) == predicted.at(i).at(k));
  CHECK(test::slurp(dir / "res" / "results.csv").find(",speedup_lo,speedup_hi\n") != std::string::npos);
  // --no-interval: no reruns, the columns as before.
  const test::Output plain = test::run_possim("run run.json --engine analytic --out plain --no-interval", dir);
  REQUIRE(plain.status == 0);
  CHECK(plain.out.find("95% interval") == std::string::npos);
  CHECK(test::slurp(dir / "plain" / "results.csv").find("_lo") == std::string::npos);
  // possim plan: each search repeated at the sigma points; a bounded interval holds its answer.
  const test::Output plan =
      test::run_possim("plan run.json --engine analytic --json plan.json -q --target-efficiency 0.5", dir);
  INFO(plan.err);
  REQUIRE(plan.status == 0);
  CHECK(plan.out.find("min Gbit/s 95%") != std::string::npos);
  std::ifstream pj(dir / "plan.json");
  const auto answers = nlohmann::json::parse(pj);
  CHECK(answers.at("uncertainty").at("parameters").size() == 4);
  int bounded = 0;
  for (const auto& a : answers.at("answers")) {
    REQUIRE(a.contains("nic_gbps_lo"));
    if (a.at("nic_gbps_lo").is_null()) continue;
    ++bounded;
    CHECK(a.at("nic_gbps_lo").get<double>() <= a.at("nic_gbps").get<double>());
    CHECK(a.at("nic_gbps_hi").get<double>() >= a.at("nic_gbps").get<double>());
  }
  CHECK(bounded > 0);
  // Points without a measurement in a CSV: the message says where such points go.
  std::ofstream(dir / "unmeasured.csv") << "model,strategy,nodes,nic_gbps,batch\nalexnet,wfbp,16,25,128\n";
  const test::Output csv = test::run_possim(
      "calibrate fit measured.csv --profile titanx_maxwell --engine analytic --out never.json --predict unmeasured.csv",
      dir);
  CHECK(csv.status == 2);
  CHECK(csv.err.find("unmeasured.csv:1: header: no measurement column") != std::string::npos);
  CHECK(csv.err.find("give --predict a scenario JSON instead") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "never.json"));
  std::ofstream(dir / "unmeasured.csv") << "model,strategy,nodes,nic_gbps,batch,iteration_s\nalexnet,wfbp,16,25,128,\n";
  const test::Output empty = test::run_possim(
      "calibrate fit measured.csv --profile titanx_maxwell --engine analytic --out never.json --predict unmeasured.csv",
      dir);
  CHECK(empty.status == 2);
  CHECK(empty.err.find("unmeasured.csv:2: iteration_s: missing") != std::string::npos);
  CHECK(empty.err.find("give --predict a scenario JSON instead") != std::string::npos);
  // A scenario that reads none of the fitted parameters (ps and its reference never run on
  // tf_stock) says why it has no interval.
  std::ofstream(dir / "none.json") << R"({"name": "none", "model": "alexnet", "batch_per_gpu": 128,
    "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["ps"], "profile": "cov.json", "iterations": 2})";
  Profile cov = load_profile("titanx_maxwell");
  cov.fit_covariance.parameters = {"tf_stock.runtime_copy_bytes_per_s"};
  cov.fit_covariance.log_covariance = {{0.01}};
  std::ofstream(dir / "cov.json") << calibrate::profile_to_json(cov).dump();
  const test::Output none = test::run_possim("run none.json --engine analytic --out none", dir);
  INFO(none.err);
  REQUIRE(none.status == 0);
  CHECK(none.err.find("no interval: profile titanx_maxwell's fit determined none of the parameters this scenario "
                      "reads") != std::string::npos);
  CHECK(test::slurp(dir / "none" / "results.csv").find("_lo") == std::string::npos);
  // A broken scenario fails before the fit, naming it.
  std::ofstream(dir / "broken.json") << R"({"name": "b", "cluster": {"nodes": [0]}})";
  const test::Output broken = test::run_possim(
      "calibrate fit measured.csv --profile titanx_maxwell --engine analytic --out never.json --predict broken.json",
      dir);
  CHECK(broken.status == 2);
  CHECK(broken.err.find("broken.json") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "never.json"));
}

// A profile without a fit covariance (h200, derived: its base's covariance dropped on
// purpose) gives no interval, and run and plan say why in one line; `possim profile list`,
// which a refusal to guess the profile points to, shows which profiles carry one.
TEST_CASE("run and plan on a profile with no fit covariance say why there is no interval and profile list shows it",
          "[uncertainty][cli]") {
  const auto dir = test::scratch("uncertainty", "no_covariance");
  std::ofstream(dir / "h.json") << R"({"name": "h", "model": "resnet50", "batch_per_gpu": 64,
    "cluster": {"nodes": [2], "gpus_per_node": 8, "nic_gbps": [100]}, "strategies": ["allreduce"],
    "profile": "h200", "iterations": 2})";
  const std::string why = "no interval: profile h200 carries no fit covariance (derived by possim profile derive";
  const test::Output run = test::run_possim("run h.json --engine analytic --out r", dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  CHECK(run.err.find(why) != std::string::npos);
  CHECK(test::slurp(dir / "r" / "results.csv").find("_lo") == std::string::npos);
  const test::Output plan = test::run_possim("plan h.json --engine analytic --analytic-only --grid 10,100", dir);
  INFO(plan.err);
  REQUIRE(plan.status == 0);
  CHECK(plan.err.find(why) != std::string::npos);
  CHECK(test::run_possim("run h.json --engine analytic --out q --no-interval", dir).err.find(why) == std::string::npos);

  const test::Output list = test::run_possim("profile list", dir);
  REQUIRE(list.status == 0);
  const auto row = [&](const std::string& name) {
    const auto at = list.out.find("\n" + name + " ");
    return at == std::string::npos ? std::string() : list.out.substr(at + 1, list.out.find('\n', at + 1) - at - 1);
  };
  CHECK(row("h200").find("titanx_maxwell") != std::string::npos);  // derived from it
  CHECK(row("h200").substr(row("h200").size() - 4) == "none");
  CHECK(row("h100").substr(row("h100").size() - 4) != "none");  // fitted to published points
  const std::size_t n = load_profile("titanx_maxwell").fit_covariance.parameters.size();
  CHECK(row("titanx_maxwell").find(std::to_string(n) + " parameters") != std::string::npos);
  CHECK(list.out.find("calibration") == std::string::npos);  // the fit records are not profiles
}

// The bounds extrapolate in log space to 1.96 sigma; where the network hides behind the
// compute past a kink, that ran WFBP at 2 nodes faster than its GPU's own work (0.80 s
// against 0.90 s, above linear scaling). No fitted parameter of titanx_maxwell's moves the
// compute, so no bound may pass it.
TEST_CASE("no interval runs an iteration faster than its GPU's work when no fitted parameter moves it",
          "[uncertainty][cli]") {
  const auto dir = test::scratch("uncertainty", "floor");
  const std::string scenario = std::string(POSSIM_SOURCE_DIR) + "/scenarios/vgg19_10gbe.json";
  const test::Output o = test::run_possim("run '" + scenario + "' --engine analytic --out r -q", dir);
  REQUIRE(o.status == 0);
  const auto j = nlohmann::json::parse(test::slurp(dir / "r" / "results.json"));
  int clamped = 0, checked = 0;
  for (const auto& r : j["results"]) {
    REQUIRE(r.contains("iteration_s_lo"));
    INFO(r["strategy"].get<std::string>() << " at " << r["nodes"].get<int>() << " nodes");
    const double busy = r["gpu_busy_s"].get<double>(), it = r["iteration_s"].get<double>();
    CHECK(r["iteration_s_lo"].get<double>() >= busy * (1 - 1e-12));
    CHECK(r["images_per_s_hi"].get<double>() <= r["images_per_s"].get<double>() * it / busy * (1 + 1e-12));
    CHECK(r["speedup_hi"].get<double>() <= r["speedup"].get<double>() * it / busy * (1 + 1e-12));
    if (r["iteration_s_lo"].get<double>() == busy && it > busy * 1.01) ++clamped;
    ++checked;
  }
  CHECK(checked == 24);
  CHECK(clamped >= 1);  // WFBP at 2 nodes: the floor holds a bound that passed it
}
