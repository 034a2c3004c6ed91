// Fitting a profile to a cluster: Levenberg-Marquardt against a case with a known answer,
// recovery of known parameters from iteration times possim itself generated (with seeded
// noise), prediction of points left out of the fit, and one-line errors for malformed
// measurement files.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <tuple>

#include "calibrate/cluster_fit.hpp"
#include "calibrate/fit.hpp"
#include "calibrate/fit_quality.hpp"
#include "calibrate/line_fit.hpp"
#include "model/input/measurements.hpp"
#include "calibrate/profile_json.hpp"
#include "calibrate/uncertainty.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/error.hpp"
#include "model/input/layer_json.hpp"
#include "model/input/profile_derive.hpp"
#include "model/workload/zoo.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using namespace possim::calibrate;
namespace fs = std::filesystem;
using Approx = Catch::Detail::Approx;

namespace {

// The cluster the fit test pretends to have measured.
const std::vector<std::string> kNames = default_fit_parameters();
const std::vector<double> kTruth = {0.80, 120e-6, 2.0e9, 9.0e9, 0.85};

MeasurementSet design(
    const std::vector<std::tuple<std::string, int, std::string, int, double>>& pts) {
  MeasurementSet m;
  m.path = "generated";
  for (const auto& [model, batch, strategy, nodes, gbps] : pts) {
    if (!m.networks.count(model)) m.networks.emplace(model, load_network(model, "."));
    MeasurementPoint p;
    p.model = model;
    p.batch = batch;
    p.strategy = strategy;
    p.nodes = nodes;
    p.nic_gbps = gbps;
    p.where = model + " " + strategy + " " + std::to_string(nodes) + "n " + std::to_string(gbps);
    m.points.push_back(p);
  }
  return m;
}

// Points a real campaign would run: one GPU, one-node naive PS (copies and apply, no
// network), and the three PS-based stacks over a range of cluster sizes and NIC rates.
MeasurementSet fit_design() {
  std::vector<std::tuple<std::string, int, std::string, int, double>> pts;
  for (const auto& [model, batch] :
       std::vector<std::pair<std::string, int>>{{"alexnet", 128}, {"googlenet", 64}}) {
    pts.emplace_back(model, batch, "single", 1, 10.0);
    pts.emplace_back(model, batch, "ps", 1, 10.0);
    for (const char* s : {"ps", "wfbp", "poseidon"})
      for (int nodes : {2, 8})
        for (double gbps : {1.0, 10.0, 40.0}) pts.emplace_back(model, batch, s, nodes, gbps);
  }
  // VGG19-22K's 358 MB classifier is the first tensor copied out after the backward pass:
  // its one-node naive-PS run is where the PCIe rate shows (as in the paper's calibration).
  pts.emplace_back("vgg19", 32, "ps", 2, 40.0);
  pts.emplace_back("vgg19_22k", 32, "single", 1, 10.0);
  pts.emplace_back("vgg19_22k", 32, "ps", 1, 10.0);
  for (const char* s : {"wfbp", "poseidon"}) pts.emplace_back("vgg19_22k", 32, s, 8, 40.0);
  return design(pts);
}

// The shipped profile without its software stacks: every strategy then runs on the
// top-level parameters these tests free.
Profile stackless(Profile p) {
  p.stacks.clear();
  p.default_stacks.clear();
  p.fit_covariance = {};  // it names the stacks' parameters
  return p;
}

Profile stackless(const std::string& name) {
  return stackless(load_profile(name));
}

// The roofline's profile of a GPU, before the shipped profile's fit to published points.
Profile derived(const std::string& gpu) {
  const std::string sheets = std::string(POSSIM_SOURCE_DIR) + "/profiles/devices/";
  return stackless(derive_profile(load_profile("titanx_maxwell"), load_device_sheet(sheets + "titanx_maxwell.json"),
                                  load_device_sheet(sheets + gpu + ".json"), gpu));
}

// Iteration times of `truth`, times (1 + noise), noise ~ N(0, sigma^2), seeded.
void measure(MeasurementSet& m, const Profile& truth, double sigma, unsigned seed) {
  std::mt19937 g(seed);
  std::normal_distribution<double> noise(0, sigma);
  for (auto& p : m.points)
    p.iteration_s = predict_iteration_s(truth, m.networks.at(p.model), p, {}, AnalyticEngine()) * (1 + noise(g));
}

}  // namespace

TEST_CASE("Levenberg-Marquardt reproduces least squares and its standard errors on a line",
          "[fit]") {
  // y = a + b x with noise: the linear least-squares answer and its standard errors are exact.
  std::mt19937 g(7);
  std::normal_distribution<double> noise(0, 0.05);
  std::vector<double> x, y;
  for (int i = 0; i < 40; ++i) {
    x.push_back(0.25 * i);
    y.push_back(2.0 + 0.7 * x.back() + noise(g));
  }
  const LineFit ols = fit_line(x, y);
  const auto residuals = [&](const std::vector<double>& p) {
    std::vector<double> r;
    for (std::size_t i = 0; i < x.size(); ++i) r.push_back(p[0] + p[1] * x[i] - y[i]);
    return r;
  };
  const LmResult lm = levenberg_marquardt(residuals, {10.0, 0.05});
  CHECK(lm.converged);
  CHECK(lm.values[0] == Approx(ols.intercept).epsilon(1e-6));
  CHECK(lm.values[1] == Approx(ols.slope).epsilon(1e-6));
  // The covariance Jacobian is a secant over +/-10% in log space: sinh(0.1)/0.1 = 1.0017.
  CHECK(lm.sigma[0] == Approx(ols.intercept_se).epsilon(3e-3));
  CHECK(lm.sigma[1] == Approx(ols.slope_se).epsilon(3e-3));
  CHECK(lm.correlation[0][1] < 0);  // intercept and slope trade off
  CHECK(lm.residuals.size() == x.size());

  // A parameter the residuals do not depend on is reported as unidentified.
  const auto blind = [&](const std::vector<double>& p) {
    std::vector<double> r;
    for (std::size_t i = 0; i < x.size(); ++i) r.push_back(p[0] + 0.7 * x[i] - y[i]);
    return r;
  };
  const LmResult b = levenberg_marquardt(blind, {1.0, 1.0});
  CHECK(std::isfinite(b.sigma[0]));
  CHECK(std::isinf(b.sigma[1]));
}

TEST_CASE("fit recovers known parameters from possim's own iteration times with 1% noise",
          "[fit]") {
  const Profile base = stackless("titanx_maxwell");
  const Profile truth = with_parameters(base, kNames, kTruth);
  MeasurementSet m = fit_design();
  measure(m, truth, 0.01, 2017);

  ClusterFitOptions opt;  // every parameter free, starting from the base profile's values
  const ClusterFit f = fit_cluster(base, m, opt);
  REQUIRE(f.names == kNames);
  CHECK(f.lm.converged);
  // Stated tolerances (relative error of the fitted value), from ten noise draws of this
  // design (worst errors: goodput 0.6%, compute 0.5%, apply 11%, PCIe 24%, per-message
  // 46%): compute and goodput move most points; the per-message cost (at most 0.6% of an
  // iteration per 10% change), the apply rate and PCIe (mostly hidden behind the apply)
  // only a few communication-bound ones.
  const std::map<std::string, double> tolerance = {{"tcp_goodput", 0.02},
                                                   {"per_message_s", 0.50},
                                                   {"server_apply_bytes_per_s", 0.15},
                                                   {"pcie_bytes_per_s", 0.30},
                                                   {"compute_scale", 0.015}};
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    const double rel = f.values[i] / kTruth[i] - 1;
    INFO(kNames[i] << ": start " << f.start[i] << ", fitted " << f.values[i] << " +/- "
                   << f.sigma[i] << ", truth " << kTruth[i] << ", error " << 100 * rel << "%");
    CHECK(std::abs(rel) < tolerance.at(kNames[i]));
    // The reported 1-sigma uncertainty is honest: the truth lies within 4 sigma.
    CHECK(f.lm.at_bound[i] == 0);
    CHECK(std::isfinite(f.sigma[i]));
    CHECK(std::abs(f.values[i] - kTruth[i]) < 4 * f.sigma[i]);
  }
  // Residuals look like the 1% noise that was added.
  CHECK(f.rms_residual < 0.02);
  CHECK(f.rms_residual > 0.004);
  REQUIRE(f.points.size() == m.points.size());
  for (const auto& p : f.points) CHECK(std::abs(p.residual) < 0.05);

  // The fitted profile predicts points that were not in the fit: another cluster size,
  // other NIC rates, another model.
  MeasurementSet held = design({{"alexnet", 128, "poseidon", 16, 20.0},
                                {"alexnet", 128, "wfbp", 4, 5.0},
                                {"googlenet", 64, "ps", 16, 2.0},
                                {"googlenet", 64, "poseidon", 4, 25.0},
                                {"vgg19", 32, "wfbp", 8, 10.0},
                                {"vgg19", 32, "poseidon", 16, 40.0}});
  measure(held, truth, 0.0, 1);
  const std::vector<PointResult> predicted = predict_points(f.fitted, held, {}, AnalyticEngine());
  for (const PointResult& r : predicted) {
    INFO(r.point.where << ": truth " << r.point.iteration_s << " s, predicted " << r.predicted_s
                       << " s");
    CHECK(std::abs(r.residual) < 0.03);
  }
  // The fitted profile keeps the covariance of all five, and its 95% intervals (the
  // prediction at each sigma point) hold the truth: at least 5 of these 6 points (expected
  // 5.7), none wider than +/- 5%.
  REQUIRE(f.fitted.fit_covariance.parameters == kNames);
  const SigmaAxes axes = sigma_axes(f.fitted, kNames);
  REQUIRE(axes.steps.size() == kNames.size());
  std::vector<std::vector<PointResult>> plus, minus;
  for (std::size_t a = 0; a < axes.steps.size(); ++a) {
    plus.push_back(predict_points(perturbed(f.fitted, kNames, axes.step(a, 1)), held, {}, AnalyticEngine()));
    minus.push_back(predict_points(perturbed(f.fitted, kNames, axes.step(a, -1)), held, {}, AnalyticEngine()));
  }
  int inside = 0;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    std::vector<double> up, down;
    for (std::size_t k = 0; k < plus.size(); ++k) up.push_back(plus[k][i].predicted_s), down.push_back(minus[k][i].predicted_s);
    const auto [lo, hi] = interval_of(predicted[i].predicted_s, up, down);
    INFO(predicted[i].point.where << ": truth " << held.points[i].iteration_s << " s, 95% [" << lo << ", " << hi << "]");
    CHECK(hi / lo < 1.1);
    CHECK(lo < predicted[i].predicted_s);
    inside += lo <= held.points[i].iteration_s && held.points[i].iteration_s <= hi ? 1 : 0;
  }
  CHECK(inside >= 5);
  // ... and the base profile did not (the fit is what makes them right).
  double worst = 0;
  for (const PointResult& r : predict_points(base, held, {}, AnalyticEngine()))
    worst = std::max(worst, std::abs(r.residual));
  CHECK(worst > 0.10);
}

TEST_CASE("fit with a subset of parameters free leaves the others at the base values", "[fit]") {
  const Profile base = stackless("titanx_maxwell");
  const Profile truth = with_parameters(base, {"tcp_goodput", "compute_scale"}, {0.7, 1.1});
  MeasurementSet m = design({{"alexnet", 128, "single", 1, 10.0},
                             {"alexnet", 128, "poseidon", 4, 1.0},
                             {"alexnet", 128, "wfbp", 8, 1.0},
                             {"alexnet", 128, "ps", 2, 10.0}});
  measure(m, truth, 0.0, 3);
  ClusterFitOptions opt;
  opt.free = {"tcp_goodput", "compute_scale"};
  const ClusterFit f = fit_cluster(base, m, opt);
  CHECK(f.values[0] == Approx(0.7).epsilon(1e-4));
  CHECK(f.values[1] == Approx(1.1).epsilon(1e-4));
  CHECK(f.fitted.per_message_s == base.per_message_s);
  CHECK(f.fitted.peak_flops_per_s == Approx(base.peak_flops_per_s * 1.1).epsilon(1e-4));
  CHECK(f.fitted.sources.at("tcp_goodput").find("fitted by possim calibrate fit") !=
        std::string::npos);
  // A refitted parameter's source is written whole: its mechanism, from the parameter's
  // definition, and the new fit; nothing of the old text (its figure, how it was got).
  Profile described = base;
  described.sources["tcp_goodput"] = "TCP's share of the line rate -- fitted: 0.5 +/- 0.1, earlier";
  const std::string refit = fit_cluster(described, m, opt).fitted.sources.at("tcp_goodput");
  CHECK(refit.rfind(parameter_mechanism("tcp_goodput") + " -- fitted: 0.7", 0) == 0);
  CHECK(refit.find("earlier") == std::string::npos);
  described.sources["tcp_goodput"] = "0.5 +/- 0.1 (1 sigma), fitted by possim calibrate fit to x.csv";
  const std::string bare = fit_cluster(described, m, opt).fitted.sources.at("tcp_goodput");
  CHECK(bare.rfind(parameter_mechanism("tcp_goodput") + " -- fitted: 0.7", 0) == 0);
  CHECK(bare.find("x.csv") == std::string::npos);
  for (const auto& t : f.fitted.throughput) CHECK(t.source.find("Poseidon") != std::string::npos);

  opt.free = {"tcp_goodput", "compute_scale", "per_message_s", "pcie_bytes_per_s",
              "server_apply_bytes_per_s"};
  CHECK_THROWS_AS(fit_cluster(base, m, opt), InputError);  // 4 points cannot fit 5 parameters
  CHECK_THROWS_AS(check_fit_parameter("nic_gbps"), InputError);
}

TEST_CASE("malformed measurement files give one InputError naming the file and the line or field",
          "[fit]") {
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      parse_measurements(text, "m.csv", ".", 32);
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK(what.find('\n') == std::string::npos);
      CHECK(what.rfind("m.csv", 0) == 0);
      return what;
    }
    FAIL("no InputError for:\n" << text);
    return "";
  };
  const std::string header = "model,strategy,nodes,nic_gbps,iteration_s\n";
  CHECK_THAT(error_of("model,strategy,nodes,iteration_s\nalexnet,ps,2,0.5\n"),
             Catch::Contains("m.csv:1") && Catch::Contains("missing column 'nic_gbps'"));
  CHECK_THAT(error_of(header + "alexnet,ps,2,10,0.5\nalexnet,ps,4,10,-0.3\n"),
             Catch::Contains("m.csv:3") && Catch::Contains("iteration_s") &&
                 Catch::Contains("not positive"));
  CHECK_THAT(error_of(header + "alexnet,sgd,2,10,0.5\n"),
             Catch::Contains("m.csv:2") && Catch::Contains("strategy") &&
                 Catch::Contains("unknown strategy 'sgd'"));
  CHECK_THAT(error_of(header + "alexnet,ps,2,10\n"),
             Catch::Contains("m.csv:2") && Catch::Contains("4 values for 5 columns"));
  CHECK_THAT(error_of(header + "alexnet,ps,2.5,10,0.5\n"), Catch::Contains("m.csv:2: nodes"));
  CHECK_THAT(error_of(header + "alexnet,ps,2,fast,0.5\n"),
             Catch::Contains("nic_gbps") && Catch::Contains("not a number"));
  CHECK_THAT(error_of(header + "alexnet,ps,2,10,nan\n"), Catch::Contains("iteration_s"));
  CHECK_THAT(error_of(header + "lenet9,ps,2,10,0.5\n"), Catch::Contains("m.csv:2: model"));
  CHECK_THAT(error_of(header + "alexnet,single,4,10,0.5\n"),
             Catch::Contains("strategy single runs on one node"));
  CHECK_THAT(error_of("model,strategy,nodes,nic_gbps,iteration_s,speed\n"),
             Catch::Contains("unknown column 'speed'"));
  CHECK_THAT(error_of(header), Catch::Contains("no measurement rows"));
  CHECK_THAT(error_of("{\"points\": [{\"model\": \"alexnet\", \"strategy\": \"ps\"]}"),
             Catch::Contains("malformed JSON"));
  CHECK_THAT(
      error_of(
          R"({"points": [{"model": "alexnet", "strategy": "ps", "nodes": 2, "nic_gbps": 10}]})"),
      Catch::Contains("points[0].iteration_s") && Catch::Contains("missing"));
  CHECK_THAT(
      error_of(
          R"({"points": [{"model": "alexnet", "strategy": "ps", "nodes": 2, "nic_gbps": 10, "iteration_s": "0.5"}]})"),
      Catch::Contains("points[0].iteration_s") && Catch::Contains("not a number"));
  CHECK_THAT(error_of(R"({"points": [], "units": "s"})"),
             Catch::Contains("units") && Catch::Contains("unknown field"));

  // Good files, both forms, with the optional columns.
  const MeasurementSet csv =
      parse_measurements("# measured on our cluster\n" +
                             std::string("model,strategy,nodes,nic_gbps,iteration_s,batch\n") +
                             "alexnet,poseidon,4,10,0.31,256\n\nalexnet,ps,2,10,0.5,\n",
                         "m.csv", ".", 32);
  REQUIRE(csv.points.size() == 2);
  CHECK(csv.points[0].batch == 256);
  CHECK(csv.points[1].batch == 32);
  CHECK(csv.points[1].where == "m.csv:5");
  const MeasurementSet js = parse_measurements(
      R"([{"model": "googlenet", "strategy": "wfbp", "nodes": 8, "nic_gbps": 40, "iteration_s": 0.6, "gpus_per_node": 2}])",
      "m.json", ".", 128);
  REQUIRE(js.points.size() == 1);
  CHECK(js.points[0].gpus_per_node == 2);
  CHECK(js.points[0].batch == 128);
}

TEST_CASE("possim calibrate fit: table, fitted profile, held-out prediction by possim run",
          "[fit][cli]") {
  const auto dir = test::scratch("fit", "cli");
  const Profile base = stackless("titanx_maxwell");
  const Profile truth = with_parameters(base, kNames, kTruth);
  MeasurementSet m = fit_design();
  measure(m, truth, 0.01, 99);
  std::ofstream(dir / "measured.csv") << measurements_csv(m.points);
  MeasurementSet held = design({{"alexnet", 128, "poseidon", 16, 20.0}});
  measure(held, truth, 0.0, 1);
  std::ofstream(dir / "held.csv") << measurements_csv(held.points);
  std::ofstream(dir / "base.json") << profile_to_json(base).dump(2);

  // The analytic engine, as the truth was made with it (SimGrid fits: test_fit_simgrid.cpp).
  const test::Output o = test::run_possim(
      "calibrate fit measured.csv --profile base.json --engine analytic --out fitted.json "
      "--predict held.csv",
      dir);
  INFO(o.err);
  REQUIRE(o.status == 0);
  for (const auto& name : kNames) CHECK(o.out.find(name) != std::string::npos);
  CHECK(o.out.find("+/- 1 sigma") != std::string::npos);
  CHECK(o.out.find("measured.csv:2") != std::string::npos);  // per-point residuals
  CHECK(o.out.find("RMS residual") != std::string::npos);
  const Profile fitted = load_profile((dir / "fitted.json").string());
  CHECK(fitted.tcp_goodput == Approx(0.8).epsilon(0.03));
  std::ifstream side(dir / "fitted.calibration.json");
  const auto j = nlohmann::json::parse(side);
  CHECK(j.at("parameters").size() == 5);
  CHECK(j.at("points").size() == m.points.size());
  CHECK(j.at("predicted").size() == 1);

  // possim run with the fitted profile at the held-out point.
  std::ofstream(dir / "held_scenario.json") << R"({
    "name": "held_out", "description": "a point the fit never saw",
    "model": "alexnet", "batch_per_gpu": 128,
    "cluster": {"nodes": [16], "gpus_per_node": 1, "nic_gbps": [20], "latency_s": 50e-6,
                "servers": {"shards": "per_node", "placement": "colocated"}},
    "strategies": ["poseidon"], "profile": "fitted.json", "iterations": 5, "seed": 1})";
  const test::Output run =
      test::run_possim("run held_scenario.json --engine analytic --out res -q", dir);
  INFO(run.err);
  REQUIRE(run.status == 0);
  std::ifstream rj(dir / "res" / "results.json");
  const auto results = nlohmann::json::parse(rj);
  const double predicted = results.at("results").at(0).at("iteration_s");
  CHECK(predicted == Approx(held.points[0].iteration_s).epsilon(0.03));

  // Malformed measurements: exit 2, one line naming the file and line, nothing written.
  std::ofstream(dir / "bad.csv")
      << "model,strategy,nodes,nic_gbps,iteration_s\nalexnet,ps,2,10,-1\n";
  const test::Output bad =
      test::run_possim("calibrate fit bad.csv --profile titanx_maxwell --out never.json", dir);
  CHECK(bad.status == 2);
  CHECK(bad.err.find("bad.csv:2: iteration_s") != std::string::npos);
  CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
  CHECK_FALSE(fs::exists(dir / "never.json"));
  const test::Output help = test::run_possim("calibrate fit --help", dir);
  CHECK(help.status == 0);

  // per_iteration_s sits inside the single-GPU time that a throughput point fixes (these
  // models have one): the fit says it is absorbed, and lists no correlation for it. The two
  // parameters cannot match points made with other compute and PCIe: a poor fit, accepted.
  MeasurementSet timed = design({{"vgg19", 32, "ps", 1, 40.0},
                                 {"vgg19", 32, "wfbp", 4, 10.0},
                                 {"googlenet", 128, "ps", 2, 40.0}});
  measure(timed, truth, 0.0, 1);
  std::ofstream(dir / "timed.csv") << measurements_csv(timed.points);
  const test::Output absorbed = test::run_possim(
      "calibrate fit timed.csv --profile base.json --engine analytic --out pi.json "
      "--free per_iteration_s,tcp_goodput --accept-poor-fit",
      dir);
  INFO(absorbed.err << absorbed.out);
  REQUIRE(absorbed.status == 0);
  CHECK(absorbed.err.find("poor fit: RMS relative residual") != std::string::npos);
  CHECK(absorbed.out.find("do not determine per_iteration_s: a model's single-GPU throughput point") !=
        std::string::npos);
  CHECK(absorbed.out.find("hardly tell apart per_iteration_s") == std::string::npos);
}

TEST_CASE("trimmed line fit drops one-sided outliers (descheduled messages)", "[fit][exchange]") {
  std::vector<double> x, y;
  for (int i = 1; i <= 12; ++i) {
    x.push_back(i * 1e6);
    y.push_back(1e-4 + i * 1e6 / 1.25e8 + (i % 3 - 1) * 1e-5);  // 125 MB/s, small jitter
  }
  y[5] += 0.02;  // one message held up for 20 ms
  y[9] += 0.01;
  const LineFit ols = fit_line(x, y);
  const LineFit trimmed = fit_line_trimmed(x, y);
  CHECK(trimmed.dropped == 2);
  CHECK(trimmed.points == 10);
  CHECK(trimmed.rate() == Approx(1.25e8).epsilon(0.002));
  CHECK(std::abs(ols.rate() / 1.25e8 - 1) > 0.01);  // plain least squares is pulled off
  // Points below the line are data, not delays: they stay.
  std::vector<double> y2 = y;
  y2[5] -= 0.02;
  y2[9] -= 0.01;
  CHECK(fit_line_trimmed(x, y2).dropped == 0);
}

TEST_CASE("the shipped titanx_maxwell profile reproduces POSEIDON.md section 9's measured points",
          "[fit][cli]") {
  // The measurement files of traces/measured/, predicted by possim's default engine. Points
  // that the shipped mechanisms fit must stay within the 3% that issue 8 asks for; Caffe+PS's
  // VGG19 one-node point and its VGG19-22K curve are known misfits (reports/paper/README.md:
  // 6.4% and up to 13.5%), held here only against getting worse.
  const auto dir = test::scratch("fit", "section9");
  const fs::path measured = fs::path(POSSIM_TESTS_DIR) / ".." / "traces" / "measured";
  std::string files;
  for (const char* f : {"caffe_ps.csv", "cntk_1bit.csv", "poseidon_caffe.csv", "single_gpu.csv", "tf_stock.csv"})
    files += " '" + (measured / f).string() + "'";
  const test::Output o = test::run_possim("validate" + files + " --json v.json", dir, 300);
  INFO(o.err << o.out);
  REQUIRE(o.status == 0);
  std::ifstream in(dir / "v.json");
  const auto v = nlohmann::json::parse(in);
  REQUIRE(v.at("points").size() == 19);
  CHECK(v.at("profile") == "titanx_maxwell");
  CHECK(v.at("engine") == "simgrid");
  int misfits = 0;
  for (const auto& p : v.at("points")) {
    const double error = std::fabs(p.at("relative_error").get<double>());
    const bool curve = p.at("stack") == "caffe_ps" && p.at("nodes").get<int>() > 1;
    const bool vgg19_one_node = p.at("stack") == "caffe_ps" && p.at("model") == "vgg19";
    INFO(p.at("where").get<std::string>() << ": " << 100 * p.at("relative_error").get<double>() << "%");
    if (curve || vgg19_one_node) {
      ++misfits;
      CHECK(error < 0.15);
    } else {
      CHECK(error < 0.03);
    }
  }
  CHECK(misfits == 6);
  CHECK(v.at("mean_abs_error").get<double>() < 0.03);
  // Its progress, in a log (stderr is a file here), as plain lines up to the last point.
  CHECK(o.err.find("validate: 19/19 points (100%)") != std::string::npos);
}

TEST_CASE("validate shows progress in a log and none with -q", "[fit][cli]") {
  const auto dir = test::scratch("fit", "validate_progress");
  const std::string file = "'" + (fs::path(POSSIM_TESTS_DIR) / ".." / "traces" / "measured" / "tf_stock.csv").string() + "'";
  const test::Output o = test::run_possim("validate " + file + " --engine analytic", dir);
  REQUIRE(o.status == 0);
  CHECK(o.err.find("validate: 1/") != std::string::npos);
  CHECK(o.err.find(" points (100%)") != std::string::npos);
  const test::Output q = test::run_possim("validate " + file + " --engine analytic -q", dir);
  REQUIRE(q.status == 0);
  CHECK(q.err.find("validate:") == std::string::npos);
  CHECK(q.out == o.out);
}

TEST_CASE("single-GPU points at several precisions fit compute_scale and tensor_core_scale apart",
          "[fit][precision]") {
  // V100-like: fp32 points run on the CUDA cores, mixed-precision ones on the tensor cores.
  const Profile base = derived("v100");
  const Profile truth = with_parameters(base, {"compute_scale", "tensor_core_scale"}, {0.8, 0.25});
  CHECK(truth.peak_flops_by_math.at("fp16") == Approx(base.peak_flops_by_math.at("fp16") * 0.8 * 0.25));
  MeasurementSet m = design({{"resnet50", 256, "single", 1, 100.0},
                             {"resnet50", 256, "single", 1, 100.0},
                             {"inception_v3", 64, "single", 1, 100.0},
                             {"inception_v3", 64, "single", 1, 100.0}});
  m.points[1].precision = m.points[3].precision = Precision::amp_fp16;
  measure(m, truth, 0.0, 5);
  // An amp point runs on the tensor cores: faster than its fp32 twin.
  CHECK(m.points[1].iteration_s < m.points[0].iteration_s);
  ClusterFitOptions opt;
  opt.free = {"compute_scale", "tensor_core_scale"};
  const ClusterFit f = fit_cluster(base, m, opt);
  CHECK(f.values[0] == Approx(0.8).epsilon(1e-4));
  CHECK(f.values[1] == Approx(0.25).epsilon(1e-4));
  CHECK(f.fitted.sources.at("peak_flops_per_s_by_precision").find("tensor_core_scale 0.25") != std::string::npos);
  // The run header's line and the "no measured point" warning know what the compute was fitted to.
  const std::string line = f.fitted.provenance_line();
  INFO(line);
  CHECK(line.rfind("derived from titanx_maxwell by the roofline, compute fitted to 4 measured points at fp32, amp_fp16 "
                   "(generated)", 0) == 0);
  CHECK(f.fitted.measured_at(Precision::amp_fp16));
  CHECK(f.fitted.measured_at(Precision::fp32));
  CHECK_FALSE(f.fitted.measured_at(Precision::tf32));
  CHECK_FALSE(base.measured_at(Precision::fp32));
  // Without the precision column the amp points read as fp32: the same two scales cannot fit.
  MeasurementSet flat = m;
  for (auto& p : flat.points) p.precision = Precision::fp32;
  CHECK(fit_cluster(base, flat, opt).rms_residual > 0.05);
  // At most the datasheet's peaks: a scale the points would push past 1 stops there.
  CHECK(parameter_range("tensor_core_scale").second == 1.0);
}

TEST_CASE("memory_bound_scale speeds the memory-bound kinds alone and tf32_scale the TF32 peak alone",
          "[fit][precision]") {
  const Profile base = derived("a100");
  const Profile m = with_parameters(base, {"memory_bound_scale"}, {3});
  for (LayerKind k : kAllLayerKinds)
    CHECK(m.efficiency_of(k) == Approx(base.efficiency_of(k) * (compute_bound_kind(k) ? 1 : 3)).epsilon(1e-12));
  // By hand on ResNet-50's layers at fp32: a convolution's time unchanged, a batch norm's a third.
  const Network net = make_zoo_network("resnet50");
  const auto before = base.layer_times(net, 32), after = m.layer_times(net, 32);
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    const double f = compute_bound_kind(net.layers[i].kind) ? 1 : 1.0 / 3;
    CHECK(after[i].forward_s == Approx(before[i].forward_s * f).epsilon(1e-12));
  }
  // Up to the peak only: a kind never computes faster than the device's fp32 peak.
  const Profile capped = with_parameters(base, {"memory_bound_scale"}, {1e3});
  for (LayerKind k : kAllLayerKinds) CHECK(capped.efficiency_of(k) <= 1.0);
  const Profile t = with_parameters(base, {"tf32_scale"}, {0.5});
  CHECK(t.peak_flops_by_math.at("tf32") == base.peak_flops_by_math.at("tf32") * 0.5);
  CHECK(t.peak_flops_by_math.at("fp16") == base.peak_flops_by_math.at("fp16"));
  CHECK(t.peak_flops_per_s == base.peak_flops_per_s);
  CHECK(parameter_range("tf32_scale").second == 1.0);
}

TEST_CASE("tf32 and amp points of an A100 fit tf32_scale and memory_bound_scale, as derive_all.sh does",
          "[fit][precision]") {
  // A single factor on both tensor peaks moves tf32 and amp_fp16 points alike (their peaks and
  // their activation bytes both differ by 2): tf32_scale and the memory-bound kinds are what
  // two precisions tell apart.
  const Profile base = derived("a100");
  const Profile truth = with_parameters(base, {"tf32_scale", "memory_bound_scale"}, {0.5, 1.7});
  MeasurementSet m = design({{"resnet50", 256, "single", 1, 100.0}, {"resnet50", 256, "single", 1, 100.0},
                             {"resnet50", 128, "single", 1, 100.0}, {"resnet50", 128, "single", 1, 100.0}});
  m.points[0].precision = m.points[2].precision = Precision::tf32;
  m.points[1].precision = m.points[3].precision = Precision::amp_fp16;
  measure(m, truth, 0.0, 7);
  ClusterFitOptions opt;
  opt.free = {"tf32_scale", "memory_bound_scale"};
  const ClusterFit f = fit_cluster(base, m, opt);
  CHECK(f.values[0] == Approx(0.5).epsilon(1e-4));
  CHECK(f.values[1] == Approx(1.7).epsilon(1e-4));
  const std::string peaks = f.fitted.sources.at("peak_flops_per_s_by_precision");
  CHECK(peaks.find("the tf32 peak further x tf32_scale 0.5") != std::string::npos);
  // The derivation's kinds kept, the fit said after them; the run header counts it as the compute's fit.
  const std::string kinds = f.fitted.sources.at("kind_efficiency");
  CHECK(kinds.rfind("possim profile derive from profile titanx_maxwell", 0) == 0);
  CHECK(kinds.find("x memory_bound_scale 1.7") != std::string::npos);
  CHECK(f.fitted.provenance_line().find("compute fitted to 4 measured points at tf32, amp_fp16") != std::string::npos);
  // The other pair cannot: tensor_core_scale moves both precisions alike.
  opt.free = {"tensor_core_scale", "memory_bound_scale"};
  const ClusterFit g = fit_cluster(base, m, opt);
  CHECK(g.rms_residual > 0.01);
}

TEST_CASE("compute_scale stops where a kind would pass the datasheet's peak and the fit says so",
          "[fit][precision][fit_quality]") {
  // The derived V100's convolutions run at 0.8 of its 15.7 TFLOP/s fp32 peak: compute_scale
  // can take them to the peak (x1.25), no further. The published V100 points, freed on
  // compute_scale alone, ask for more: the fit stops at the peak and is judged poor.
  const Profile base = derived("v100");
  REQUIRE(base.efficiency_of(LayerKind::conv) == 0.8);
  CHECK(parameter_range(base, "compute_scale").second == Approx(1.25));
  CHECK(parameter_range("compute_scale").second == 1e3);  // no profile: the sanity bound
  const MeasurementSet m =
      load_measurements(std::string(POSSIM_SOURCE_DIR) + "/traces/measured/published/resnet50_v100.csv", 32);
  ClusterFitOptions opt;
  opt.free = {"compute_scale"};
  const ClusterFit f = fit_cluster(base, m, opt);
  CHECK(f.values[0] <= 1.25 * (1 + 1e-12));
  CHECK(f.lm.at_bound[0] == 1);
  CHECK(f.fitted.peak_flops_per_s * f.fitted.efficiency_of(LayerKind::conv) <= 15.7e12 * (1 + 1e-9));
  const FitVerdict v = judge_cluster_fit(f);
  REQUIRE(v.poor());
  CHECK(v.summary().find("compute_scale = 1.25 is stuck at the upper end of its physical range [0.001, 1.25]") !=
        std::string::npos);
}

TEST_CASE("a measurement file's precision column is read and checked", "[fit][precision]") {
  const fs::path dir = fs::temp_directory_path() / "possim_precision_csv";
  fs::create_directories(dir);
  std::ofstream(dir / "ok.csv") << "model,strategy,nodes,nic_gbps,batch,images_per_s,precision\n"
                                   "resnet50,single,1,100,256,1000,amp_bf16\nresnet50,single,1,100,256,400,\n";
  const MeasurementSet m = load_measurements((dir / "ok.csv").string(), 32);
  CHECK(m.points[0].precision == Precision::amp_bf16);
  CHECK(m.points[1].precision == Precision::fp32);
  std::ofstream(dir / "bad.csv") << "model,strategy,nodes,nic_gbps,images_per_s,precision\n"
                                    "resnet50,single,1,100,1000,half\n";
  CHECK_THROWS_WITH(load_measurements((dir / "bad.csv").string(), 32),
                    Catch::Contains("bad.csv:2") && Catch::Contains("precision") && Catch::Contains("amp_bf16"));
  fs::remove_all(dir);
}
