// Fits that respect physics: what makes a fit poor (calibrate/fit_quality.hpp), judged on
// hand-made fits; `possim calibrate fit` refusing a poor one (exit 3, nothing written) unless
// --accept-poor-fit, which writes it with its sources saying so; and a refitted parameter's
// source written whole, none of its old text left.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "calibrate/cluster_fit.hpp"
#include "calibrate/exchange/exchange.hpp"
#include "calibrate/fit_quality.hpp"
#include "calibrate/kernels.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/layer_json.hpp"
#include "model/input/limits.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using namespace possim::calibrate;
namespace fs = std::filesystem;
using Approx = Catch::Detail::Approx;

namespace {

bool names(const FitVerdict& v, const std::string& what) { return v.summary().find(what) != std::string::npos; }

// seconds = fixed + bytes / rate at four sizes.
LineFit line(double fixed_s, double rate, const std::vector<double>& wobble = {0, 0, 0, 0}) {
  const std::vector<double> x = {1e6, 2e6, 4e6, 8e6};
  std::vector<double> y;
  for (std::size_t i = 0; i < x.size(); ++i) y.push_back((fixed_s + x[i] / rate) * (1 + wobble[i]));
  return fit_line(x, y);
}

ClusterFit cluster_fit(const std::vector<std::string>& n, std::vector<int> at_bound, double rms) {
  ClusterFit f;
  f.names = n;
  f.values.assign(n.size(), 1.0);
  f.lm.at_bound = std::move(at_bound);
  f.rms_residual = rms;
  return f;
}

}  // namespace

TEST_CASE("a line fit is poor below R^2 0.9 or with a negative fixed cost, unless a shaper explains it",
          "[fit][fit_quality]") {
  FitVerdict good;
  judge_line(line(50e-6, 1e9, {0.01, -0.01, 0.01, -0.01}), "path push", false, good);
  CHECK_FALSE(good.poor());

  // Times that shrink and grow with size: no bandwidth in them.
  FitVerdict scattered;
  judge_line(line(1e-3, 1e9, {0.9, -0.5, 0.8, -0.4}), "path pull", false, scattered);
  CHECK(scattered.poor());
  CHECK(names(scattered, "path pull: R^2"));
  CHECK(names(scattered, "below 0.9"));

  // Loopback's shape: a negative intercept far outside its standard error.
  const LineFit negative = line(-500e-6, 1e9, {0.001, -0.001, 0.001, -0.001});
  REQUIRE(negative.intercept < 0);
  FitVerdict v;
  judge_line(negative, "path all", false, v);
  CHECK(v.poor());
  CHECK(names(v, "path all: intercept -"));
  CHECK(names(v, "negative fixed cost"));
  FitVerdict shaped;  // tc's token bucket makes one real
  judge_line(negative, "path all", true, shaped);
  CHECK_FALSE(shaped.poor());

  // The exchange judges every path; under --netns a negative intercept is not poor.
  exchange::ExchangeResult r;
  r.mode = "loopback";
  r.paths = {{"push", line(50e-6, 1e9)}, {"all", negative}};
  CHECK(judge_exchange(r).poor());
  CHECK(names(judge_exchange(r), "path all"));
  CHECK_FALSE(names(judge_exchange(r), "path push"));
  r.mode = "netns";
  CHECK_FALSE(judge_exchange(r).poor());
}

TEST_CASE("a copy line's negative fixed cost is clamped to 0 and its rate refitted, and only a bus's line is judged",
          "[fit][fit_quality]") {
  // The -1380 us of a host memcpy curve: per-byte time grows with size.
  const std::vector<double> x = {1e6, 4e6, 16e6, 64e6};
  const std::vector<double> y = {0.05e-3, 0.3e-3, 2.0e-3, 9.5e-3};
  REQUIRE(fit_line(x, y).intercept < 0);
  const LineFit f = fit_line_nonnegative(x, y);
  CHECK(f.intercept == 0);
  CHECK(f.clamped_intercept == Approx(fit_line(x, y).intercept));
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sxy += x[i] * y[i], sxx += x[i] * x[i];
  CHECK(f.slope == Approx(sxy / sxx));
  CHECK(f.r2 > kMinLineR2);
  CHECK(to_json(f).contains("free_intercept_s_clamped_to_0"));
  // A positive intercept: the least-squares line unchanged.
  const LineFit plain = fit_line_nonnegative({1e6, 2e6, 4e6}, {1.1e-3, 2.1e-3, 4.1e-3});
  CHECK(plain.intercept == Approx(0.1e-3));
  CHECK(plain.clamped_intercept == 0);
  CHECK_FALSE(to_json(plain).contains("free_intercept_s_clamped_to_0"));

  KernelCalibration c;
  c.copy_fit_ok = true;
  c.copy_fit = line(5e-6, 5e10, {0.9, -0.5, 0.8, -0.4});
  c.copies_cross_a_bus = false;  // a host memcpy: not written into the profile
  CHECK_FALSE(judge_copy_fit(c).poor());
  c.copies_cross_a_bus = true;
  CHECK(judge_copy_fit(c).poor());
  CHECK(names(judge_copy_fit(c), "pinned host<->device copies: R^2"));
}

TEST_CASE("a cluster fit is poor above 10% RMS or with a parameter stuck where its mechanism is impossible",
          "[fit][fit_quality]") {
  CHECK_FALSE(judge_cluster_fit(cluster_fit({"tcp_goodput"}, {0}, 0.067)).poor());  // the shipped refit's
  const FitVerdict rms = judge_cluster_fit(cluster_fit({"tcp_goodput"}, {0}, 0.25));
  CHECK(rms.poor());
  CHECK(names(rms, "RMS relative residual 25% is above 10%"));
  // The end where the mechanism costs nothing: undetermined, not poor.
  CHECK_FALSE(judge_cluster_fit(cluster_fit({"per_message_s", "caffe_ps.server_apply_bytes_per_s"}, {-1, +1}, 0.01))
                  .poor());
  // The other end, and a share or a factor at either end: the points ask for the impossible.
  for (const auto& [name, side] : std::vector<std::pair<std::string, int>>{{"tcp_goodput", +1},
                                                                           {"compute_scale", -1},
                                                                           {"per_message_s", +1},
                                                                           {"caffe_ps.server_apply_bytes_per_s", -1}}) {
    const FitVerdict v = judge_cluster_fit(cluster_fit({name}, {side}, 0.01));
    INFO(name);
    CHECK(v.poor());
    CHECK(names(v, name + " = 1 is stuck at the " + (side < 0 ? "lower" : "upper") + " end of its physical range"));
  }
}

TEST_CASE("a refitted parameter's source is its mechanism and the new fit, nothing of the old text",
          "[fit][fit_quality]") {
  Profile base = load_profile("titanx_maxwell");
  base.stacks.clear();
  base.default_stacks.clear();
  base.fit_covariance = {};
  // What possim profile derive and an earlier fit leave: copied text, another mechanism's
  // words, an old figure and its points.
  base.sources["tcp_goodput"] =
      "copied unchanged from base profile other by possim profile derive: it describes the host software, "
      "network or driver, not the GPU. Base's source: shared with NFS traffic -- fitted: 0.5 +/- 0.1 (1 sigma), "
      "fitted by possim calibrate fit (analytic engine) to old.csv (9 points)";
  const Profile truth = with_parameters(base, {"tcp_goodput"}, {0.7});
  MeasurementSet m;
  m.path = "new.csv";
  m.networks.emplace("alexnet", load_network("alexnet", "."));
  for (int nodes : {2, 4}) {
    MeasurementPoint p;
    p.model = "alexnet";
    p.batch = 128;
    p.strategy = "wfbp";
    p.nodes = nodes;
    p.nic_gbps = 1;
    p.where = "new.csv:" + std::to_string(nodes);
    p.iteration_s = predict_iteration_s(truth, m.networks.at("alexnet"), p, {}, AnalyticEngine());
    m.points.push_back(p);
  }
  ClusterFitOptions opt;
  opt.free = {"tcp_goodput"};
  opt.restarts = 0;
  const std::string src = fit_cluster(base, m, opt).fitted.sources.at("tcp_goodput");
  INFO(src);
  CHECK(src.rfind(parameter_mechanism("tcp_goodput") + " -- fitted: 0.7", 0) == 0);
  CHECK(src.find("new.csv") != std::string::npos);
  for (const char* stale : {"copied unchanged", "Base's source", "NFS", "0.5 +/- 0.1", "old.csv"})
    CHECK(src.find(stale) == std::string::npos);
  CHECK(src.size() < limits::kMaxNoteChars);
}

TEST_CASE("possim calibrate fit refuses a poor fit (exit 3, nothing written) unless --accept-poor-fit",
          "[fit][fit_quality][cli]") {
  const auto dir = test::scratch("fit_quality", "cli");
  // One point measured twice, 3x apart: no tcp_goodput matches both.
  std::ofstream(dir / "contradict.csv") << "model,strategy,nodes,nic_gbps,batch,iteration_s\n"
                                           "alexnet,wfbp,4,1,128,0.5\n"
                                           "alexnet,wfbp,4,1,128,1.5\n";
  const std::string fit =
      "calibrate fit contradict.csv --profile titanx_maxwell --engine analytic --free tcp_goodput --restarts 0 ";
  const test::Output poor = test::run_possim(fit + "--out poor.json", dir);
  INFO(poor.err);
  CHECK(poor.status == 3);
  CHECK(poor.err.find("poor fit: RMS relative residual") != std::string::npos);
  CHECK(poor.err.find("is above 10%") != std::string::npos);
  CHECK(poor.err.find("poor.json was not written (exit 3)") != std::string::npos);
  CHECK(poor.out.find("contradict.csv:3") != std::string::npos);  // the residuals say which points
  CHECK_FALSE(fs::exists(dir / "poor.json"));
  CHECK_FALSE(fs::exists(dir / "poor.calibration.json"));

  const test::Output accepted = test::run_possim(fit + "--out accepted.json --accept-poor-fit", dir);
  INFO(accepted.err);
  REQUIRE(accepted.status == 0);
  CHECK(accepted.err.find("poor fit: RMS relative residual") != std::string::npos);
  const Profile p = load_profile((dir / "accepted.json").string());
  CHECK(p.sources.at("tcp_goodput").find("ACCEPTED AS A POOR FIT (--accept-poor-fit): RMS relative residual") !=
        std::string::npos);
  CHECK(p.sources.at("per_message_s").find("ACCEPTED") == std::string::npos);  // not fitted
  CHECK(test::slurp(dir / "accepted.calibration.json").find("\"accepted_poor_fit\"") != std::string::npos);
  const test::Output help = test::run_possim("calibrate fit --help", dir);
  CHECK(help.out.find("--accept-poor-fit") != std::string::npos);
}

// Points that contradict each other leave a parameter with a log-variance far past a profile's
// limit (e^5 per sigma): the fit is still a poor fit (exit 3, or written with
// --accept-poor-fit), the parameter named as not determined and left out of the covariance.
TEST_CASE("a parameter the contradicting points leave open makes a poor fit and stays out of the covariance",
          "[fit][fit_quality][cli]") {
  const auto dir = test::scratch("fit_quality", "open");
  std::ofstream(dir / "poor.csv") << "model,strategy,nodes,nic_gbps,batch,stack,iteration_s,profile\n"
                                     "vgg19_22k,ps,2,40,32,caffe_ps,0.5,titanx_maxwell\n"
                                     "vgg19_22k,ps,4,40,32,caffe_ps,9.0,titanx_maxwell\n"
                                     "vgg19_22k,ps,8,40,32,caffe_ps,0.7,titanx_maxwell\n";
  const std::string p = "caffe_ps.server_apply_bytes_per_s";
  const std::string fit = "calibrate fit poor.csv --profile titanx_maxwell --engine analytic --restarts 1 --free " +
                          p + ",caffe_ps.client_pass_bytes_per_s ";
  const test::Output poor = test::run_possim(fit + "--out poor.json", dir);
  INFO(poor.err);
  CHECK(poor.status == 3);
  CHECK(poor.err.find("poor fit: RMS relative residual") != std::string::npos);
  CHECK(poor.out.find("these points do not determine " + p) != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "poor.json"));

  const test::Output accepted = test::run_possim(fit + "--out accepted.json --accept-poor-fit", dir);
  INFO(accepted.err);
  REQUIRE(accepted.status == 0);
  const Profile q = load_profile((dir / "accepted.json").string());  // it loads: no variance past its limit
  const auto& params = q.fit_covariance.parameters;
  CHECK(std::find(params.begin(), params.end(), p) == params.end());
  CHECK(std::find(params.begin(), params.end(), "caffe_ps.client_pass_bytes_per_s") != params.end());
  CHECK(q.fit_covariance.source.find("not determined, so left out: " + p) != std::string::npos);
  CHECK(q.stacks.at("caffe_ps").sources.at("server_apply_bytes_per_s").find("not determined by these points") !=
        std::string::npos);
}

// Each parameter --free takes has a physical range a fit keeps it in (positive: the fit works
// in log space), and `calibrate fit --help` lists them with their units.
TEST_CASE("every fit parameter has a positive range and calibrate fit --help lists it with its unit",
          "[fit][fit_quality][cli]") {
  const auto dir = test::scratch("fit_quality", "help");
  const test::Output help = test::run_possim("calibrate fit --help", dir);
  REQUIRE(help.status == 0);
  for (const std::string& n : fit_parameter_names()) {
    INFO(n);
    const auto [lo, hi] = parameter_range(n);
    CHECK(lo > 0);
    CHECK(hi > lo);
    const auto at = help.out.find("\n  " + n + " ");
    REQUIRE(at != std::string::npos);
    const std::string line = help.out.substr(at + 1, help.out.find('\n', at + 1) - at - 1);
    CHECK(line.find("[" ) != std::string::npos);
    CHECK(line.find(parameter_mechanism(n)) != std::string::npos);
  }
  CHECK(help.out.find("tcp_goodput                fraction [0.01, 1]") != std::string::npos);
  CHECK(help.out.find("collective_launch_s        s        [1e-09, 1]") != std::string::npos);
}
