#include "calibrate/cluster_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <random>

#include "calibrate/profile_json.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/input/error.hpp"
#include "model/plan/plan_check.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/parallel.hpp"
#include "model/strategies/strategy.hpp"
#include "model/input/text.hpp"

namespace possim::calibrate {

namespace {

std::string fmt(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}

// At most `max_chars` bytes, cut at a UTF-8 boundary: notes nest (a chain of fits, a long
// points path) and a profile's notes are bounded (limits::kMaxNoteChars).
std::string bounded(std::string s, std::size_t max_chars) {
  if (s.size() <= max_chars) return s;
  std::size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

// What possim's profile reader says of p, or "" when it would load it.
std::string load_problem(const Profile& p) {
  try {
    parse_profile(profile_to_json(p).dump(), "the fitted profile");
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

// A fit whose values make a profile possim rejects (compute_scale pushing a throughput
// point past per_iteration_s, layer times past their bound) failed: say which parameter.
void check_loadable(const Profile& base, const ClusterFit& f) {
  const std::string problem = load_problem(f.fitted);
  if (problem.empty()) return;
  std::string culprits;
  for (std::size_t i = 0; i < f.names.size(); ++i)
    if (!load_problem(with_parameters(base, {f.names[i]}, {f.values[i]})).empty())
      culprits += (culprits.empty() ? "" : ", ") + f.names[i] + " = " + fmt(f.values[i]);
  throw std::runtime_error("fit failed: " + (culprits.empty() ? "the fitted values together" : culprits) +
                           " would make a profile possim rejects (" + problem +
                           "); leave it out of --free, give its --start, or fit to other points");
}

}  // namespace

const std::vector<std::string>& default_fit_parameters() {
  static const std::vector<std::string> n = {"tcp_goodput", "per_message_s",
                                             "server_apply_bytes_per_s", "pcie_bytes_per_s",
                                             "compute_scale"};
  return n;
}

namespace {

// "stack.param" -> {"stack", "param"}; "param" -> {"", "param"}.
std::pair<std::string, std::string> split_name(const std::string& name) {
  const auto dot = name.find('.');
  if (dot == std::string::npos) return {"", name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

bool is_stack_parameter(const std::string& n) {
  const auto& v = stack_parameter_names();
  return std::find(v.begin(), v.end(), n) != v.end();
}

}  // namespace

FitCovariance merged_covariance(const Profile& base_profile, const ClusterFit& fit, const std::string& points_path,
                                const std::string& engine) {
  const FitCovariance& base = base_profile.fit_covariance;
  // The parameters this fit determined: inside their range, finite sigma, and with more
  // points than parameters (else s^2, and with it every variance, is unknown, not zero).
  std::vector<std::size_t> kept;
  std::string left_out;
  const bool dof = fit.lm.residual_variance > 0;
  for (std::size_t i = 0; i < fit.names.size(); ++i) {
    if (dof && fit.lm.at_bound.at(i) == 0 && std::isfinite(fit.sigma.at(i)) && i < fit.lm.log_covariance.size())
      kept.push_back(i);
    else
      left_out += (left_out.empty() ? "" : ", ") + fit.names[i];
  }
  FitCovariance c;
  // The base's parameters this fit did not free keep their block; between the two fits
  // the covariance is unknown and taken as 0 (this fit held them at their values).
  // (Not those of a stack the base no longer has: a caller may have removed it.)
  for (std::size_t i = 0; i < base.parameters.size(); ++i) {
    const std::string& n = base.parameters[i];
    if (std::find(fit.names.begin(), fit.names.end(), n) != fit.names.end()) continue;
    if (const auto dot = n.find('.'); dot != std::string::npos && !base_profile.stacks.count(n.substr(0, dot))) continue;
    c.parameters.push_back(n);
  }
  const std::size_t from_base = c.parameters.size();
  for (std::size_t i : kept) c.parameters.push_back(fit.names[i]);
  const std::size_t k = c.parameters.size();
  c.log_covariance.assign(k, std::vector<double>(k, 0.0));
  const auto base_index = [&](const std::string& n) {
    return std::size_t(std::find(base.parameters.begin(), base.parameters.end(), n) - base.parameters.begin());
  };
  for (std::size_t a = 0; a < from_base; ++a)
    for (std::size_t b = 0; b < from_base; ++b)
      c.log_covariance[a][b] = base.log_covariance[base_index(c.parameters[a])][base_index(c.parameters[b])];
  for (std::size_t a = 0; a < kept.size(); ++a)
    for (std::size_t b = 0; b < kept.size(); ++b)
      c.log_covariance[from_base + a][from_base + b] = fit.lm.log_covariance[kept[a]][kept[b]];
  if (k == 0) return c;
  std::string names;
  for (std::size_t i : kept) names += (names.empty() ? "" : ", ") + fit.names[i];
  c.source = "possim calibrate fit (" + engine + " engine) to " + points_path + " (" +
             counted(long(fit.points.size()), "point") + "): s^2 (J^T J)^-1 of " +
             (names.empty() ? "no parameter" : names) +
             (left_out.empty() ? "" : "; not determined, so left out: " + left_out +
                                          (dof ? "" : " (no more points than parameters: s^2 unknown)"));
  if (from_base > 0) {
    // A chain of fits nests its sources: keep the note bounded (a profile's note limit).
    const std::string earlier = bounded(base.source, 1500);
    c.source += "; kept from the base profile (the covariance between the two fits taken as 0): " + earlier;
  }
  return c;
}

void check_fit_parameter(const std::string& name) {
  if (is_fit_parameter_name(name)) return;
  const auto& all = fit_parameter_names();
  std::string list;
  for (const auto& n : all) list += (list.empty() ? "" : ", ") + n;
  throw InputError("--free", "unknown parameter '" + name + "'",
                   "a comma-separated list of " + list + ", or STACK." +
                       "<software parameter> for one stack's");
}

void check_fit_parameter(const Profile& base, const std::string& name) {
  check_fit_parameter(name);
  const std::string stack = split_name(name).first;
  if (!stack.empty()) base.stack_named(stack);  // throws, naming the stacks
}

std::string parameter_mechanism(const std::string& name) {
  static const std::map<std::string, std::string> m = {
      {"tcp_goodput", "TCP's payload share of the NIC's line rate"},
      {"tcp_host_bytes_per_s", "the payload one node's kernel TCP stack moves per direction"},
      {"pcie_bytes_per_s", "host<->device copy rate over the node's bus"},
      {"compute_scale",
       "a factor on the base profile's compute speed, at most what takes its fastest kind to the datasheet's peak"},
      {"tensor_core_scale",
       "a factor on the base profile's tensor-core peaks (tf32, fp16, bf16): the share of them the convolutions "
       "and GEMMs of a TF32 or mixed-precision run reach beside the fp32 kind efficiencies, at most 1 (the datasheet's)"},
      {"tf32_scale",
       "a further factor on the TF32 tensor-core peak alone: TF32 convolutions and GEMMs read fp32 operands, twice "
       "the bytes per FLOP of 16-bit ones, and reach a smaller share of their peak; at most 1"},
      {"memory_bound_scale",
       "a factor on the speed of the memory-bound kinds (batch norm, activations, pooling, additions: every kind but "
       "conv and fc): a derived profile keeps the base's bytes moved per element (Caffe's 2016 kernels) and moves "
       "only the DRAM roof; a stack whose kernels make fewer passes over an activation (cuDNN's batch norm, fused "
       "element-wise kernels) runs them faster"},
      {"server_apply_bytes_per_s", "a shard taking in one worker's update"},
      {"server_update_bytes_per_s", "the optimizer's update, once per step when every worker's update is in"},
      {"server_per_peer_s", "a shard's fixed work per worker request per tensor slice"},
      {"client_pass_bytes_per_s", "a PS client passing over a layer's buffer once per shard to build its messages"},
      {"runtime_copy_bytes_per_s", "a runtime staging every byte it sends or receives through host copies"},
      {"step_sync_s", "a BSP step's synchronisation round with the servers, fixed seconds per step"},
      {"per_message_s", "the software cost of one message"},
      {"per_iteration_s", "a fixed framework cost per iteration on the GPU"},
      {"quantize_bytes_per_s", "the 1-bit quantization pass over a gradient"},
      {"collective_launch_s", "starting one collective, before each worker's first round"}};
  const auto it = m.find(split_name(name).second);
  if (it == m.end()) check_fit_parameter(name);  // names --free
  return it == m.end() ? name : it->second;
}

std::vector<std::string*> parameter_sources(Profile& p, const std::string& name) {
  const auto [stack, n] = split_name(name);
  if (n == "tensor_core_scale" || n == "tf32_scale") return {&p.sources["peak_flops_per_s_by_precision"]};
  if (n == "memory_bound_scale") return {&p.sources["kind_efficiency"]};
  if (n != "compute_scale") return {stack.empty() ? &p.sources[n] : &p.stacks[stack].sources[n]};
  std::vector<std::string*> out = {&p.sources["peak_flops_per_s"]};
  if (!p.measured.empty()) out.push_back(&p.sources["measured"]);
  if (!p.throughput.empty()) out.push_back(&p.sources["throughput"]);
  return out;
}

std::pair<double, double> parameter_range(const std::string& name) {
  const std::string n = split_name(name).second;
  if (n == "tcp_goodput") return {0.01, 1.0};  // a fraction of line rate
  if (n == "per_message_s") return {1e-9, 1.0};
  if (n == "per_iteration_s") return {1e-6, 10.0};
  if (n == "server_per_peer_s") return {1e-9, 1.0};
  if (n == "step_sync_s") return {1e-6, 1.0};
  if (n == "collective_launch_s") return {1e-9, 1.0};
  // Upper ends below the profile reader's limits (1e13 B/s), so a fit at its bound still
  // writes a profile possim reads.
  if (n == "server_apply_bytes_per_s" || n == "runtime_copy_bytes_per_s" ||
      n == "client_pass_bytes_per_s" || n == "server_update_bytes_per_s" ||
      n == "quantize_bytes_per_s")
    return {1e6, 1e12};
  if (n == "pcie_bytes_per_s") return {1e7, 1e12};  // beyond any PCIe or NVLink-C2C link
  if (n == "tcp_host_bytes_per_s") return {1e6, 1e12};  // a kernel TCP stack, per direction
  if (n == "compute_scale") return {1e-3, 1e3};
  if (n == "tensor_core_scale" || n == "tf32_scale") return {1e-3, 1.0};  // no faster than the peaks it scales
  if (n == "memory_bound_scale") return {1e-3, 1e3};
  check_fit_parameter(name);
  return {0, 0};
}

std::string fit_parameter_table() {
  const auto unit = [](const std::string& n) -> std::string {
    if (n == "tcp_goodput") return "fraction";
    if (is_relative_parameter(n)) return "factor";
    if (n.size() > 12 && n.compare(n.size() - 12, 12, "_bytes_per_s") == 0) return "bytes/s";
    return "s";
  };
  std::string out =
      "parameters --free takes (STACK.PARAM for one stack's software parameter), each kept in its physical "
      "range:\n";
  for (const std::string& n : fit_parameter_names()) {
    const auto [lo, hi] = parameter_range(n);
    std::string line = "  " + n;
    line.resize(std::max<std::size_t>(line.size() + 1, 29), ' ');
    std::string u = unit(n);
    u.resize(9, ' ');
    std::string range = "[" + fmt(lo) + ", " + fmt(hi) + "]";
    range.resize(std::max<std::size_t>(range.size() + 1, 16), ' ');
    out += line + u + range + parameter_mechanism(n) + "\n";
  }
  return out +
         "  compute_scale also stops where the base profile's fastest kind would pass its datasheet peak.\n";
}

std::pair<double, double> parameter_range(const Profile& p, const std::string& name) {
  auto range = parameter_range(name);
  if (name == "compute_scale") {
    // A factor on achieved rates that are shares of the datasheet's peaks: no kind may pass
    // its peak (V100's conv at 0.8 of 15.7 TFLOP/s stops at x1.25).
    double fastest = 0;
    for (LayerKind k : kAllLayerKinds) fastest = std::max(fastest, p.efficiency_of(k));
    for (const auto& [math, kinds] : p.kind_efficiency_by_math)
      for (const auto& [kind, e] : kinds) fastest = std::max(fastest, e);
    if (fastest > 0) range.second = std::min(range.second, 1 / fastest);
  }
  return range;
}

bool is_relative_parameter(const std::string& name) {
  return name == "compute_scale" || name == "tensor_core_scale" || name == "tf32_scale" ||
         name == "memory_bound_scale";
}

double profile_parameter(const Profile& p, const std::string& name) {
  const auto [stack, n] = split_name(name);
  if (!stack.empty()) {  // the stack's value where it sets one, else the profile's (as with_stack applies it)
    const SoftwareStack& s = p.stack_named(stack);
    const auto v = s.params.find(n);
    return v != s.params.end() ? v->second : p.parameter(n);
  }
  if (n == "tcp_goodput") return p.tcp_goodput;
  if (n == "tcp_host_bytes_per_s") return p.tcp_host_bytes_per_s;
  if (n == "pcie_bytes_per_s") return p.pcie_bytes_per_s;
  if (is_relative_parameter(n)) return 1.0;
  if (is_stack_parameter(n)) return p.parameter(n);
  check_fit_parameter(name);
  return 0;
}

Profile with_parameters(const Profile& base, const std::vector<std::string>& names,
                        const std::vector<double>& values) {
  Profile p = base;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double v = values.at(i);
    const auto [stack, n] = split_name(names[i]);
    if (!stack.empty()) {
      p.stack_named(stack);  // throws for an unknown stack, naming the stacks
      p.stacks[stack].params[n] = v;
    } else if (n == "tcp_goodput") {
      p.tcp_goodput = v;
    } else if (n == "tcp_host_bytes_per_s") {
      p.tcp_host_bytes_per_s = v;
    } else if (n == "pcie_bytes_per_s") {
      p.pcie_bytes_per_s = v;
    } else if (n == "compute_scale") {
      p.peak_flops_per_s *= v;
      for (auto& [math, peak] : p.peak_flops_by_math) peak *= v;  // the tensor-core maths too
      for (auto& m : p.measured)
        for (auto& l : m.layers) {
          l.forward_s /= v;
          l.backward_s /= v;
        }
      for (auto& t : p.throughput) t.images_per_s *= v;
    } else if (n == "tensor_core_scale") {
      // The tensor-core peaks only; measured points and timings stay what was measured.
      for (auto& [math, peak] : p.peak_flops_by_math) peak *= v;
    } else if (n == "tf32_scale") {
      if (auto it = p.peak_flops_by_math.find("tf32"); it != p.peak_flops_by_math.end()) it->second *= v;
    } else if (n == "memory_bound_scale") {
      // Every kind but conv and fc, up to the peak (where a kind would stop being
      // memory-bound); measured timings stay what was measured.
      for (LayerKind k : kAllLayerKinds)
        if (!compute_bound_kind(k)) p.kind_efficiency[k] = std::min(1.0, p.efficiency_of(k) * v);
    } else if (double* f = p.parameter_field(n)) {
      *f = v;
    } else {
      check_fit_parameter(names[i]);
    }
  }
  return p;
}

namespace {

// The plan of a measured point on `engine`, its iteration time.
double predict_at(const Profile& base, const Network& net, const MeasurementPoint& pt, const ClusterAssumptions& a,
                  const Engine& engine) {
  Profile p = base.for_strategy(pt.strategy, pt.stack);
  if (pt.precision != Precision::fp32)
    p = p.with_numerics(Numerics{pt.precision, default_gradient_dtype(pt.precision)});
  PlanRequest r;
  r.net = &net;
  r.profile = &p;
  r.cluster.nodes = pt.nodes;
  r.cluster.gpus_per_node = pt.gpus_per_node;
  r.cluster.nic_gbps = pt.nic_gbps;
  r.cluster.latency_s = a.latency_s;
  r.cluster.server_shards = a.server_shards > 0 ? a.server_shards : pt.nodes;
  r.cluster.placement = ServerPlacement::colocated;
  r.batch_per_gpu = pt.batch;
  r.iterations = a.iterations;
  const SyncPlan plan = make_plan(pt.strategy, r);
  check_plan(plan);  // finite task times within the limit, as a scenario's points: never an endless run
  RunOptions o;
  o.iteration_only = true;  // a fit reads the iteration time alone
  return engine.run(plan, o).iteration_s;
}

}  // namespace

double predict_iteration_s(const Profile& base, const Network& net, const MeasurementPoint& pt,
                           const ClusterAssumptions& a, const Engine& engine) {
  try {
    return predict_at(base, net, pt, a, engine);
  } catch (const InputError& e) {  // a stack the profile lacks, a plan past a limit: which point
    throw InputError(pt.where + ": " + e.what());
  }
}

double relative_error(const MeasurementPoint& pt, double predicted_iteration_s) {
  if (pt.measured_as == "iteration_s" || !(pt.measured_value > 0))
    return predicted_iteration_s / pt.iteration_s - 1;
  return pt.in_measured_unit(predicted_iteration_s) / pt.measured_value - 1;
}

namespace {

// f(i) for every point, `threads` at a time (model/run/parallel.hpp: the first exception
// stops the rest and is rethrown).
std::vector<double> map_points(std::size_t n, int threads,
                               const std::function<double(std::size_t)>& f) {
  std::vector<double> out(n);
  parallel_for(n, threads, [&](std::size_t i) { out[i] = f(i); });
  return out;
}

}  // namespace

std::vector<PointResult> predict_points(const Profile& p, const MeasurementSet& m,
                                        const ClusterAssumptions& a, const Engine& engine,
                                        int threads, const std::function<void(std::size_t)>& progress) {
  std::mutex progress_mu;
  std::size_t done = 0;
  const std::vector<double> s = map_points(m.points.size(), threads, [&](std::size_t i) {
    const MeasurementPoint& pt = m.points[i];
    const double t = predict_iteration_s(p, m.networks.at(pt.model), pt, a, engine);
    if (progress) {
      const std::lock_guard<std::mutex> lock(progress_mu);
      progress(++done);
    }
    return t;
  });
  std::vector<PointResult> out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    PointResult r;
    r.point = m.points[i];
    r.predicted_s = s[i];
    r.residual = relative_error(r.point, s[i]);
    out.push_back(r);
  }
  return out;
}

ClusterFit fit_cluster(const Profile& base, const MeasurementSet& m, const ClusterFitOptions& opt) {
  if (opt.free.empty())
    throw InputError("--free", "", "no parameter to fit", "at least one of the fit parameters");
  for (std::size_t i = 0; i < opt.free.size(); ++i) {
    check_fit_parameter(base, opt.free[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (opt.free[j] == opt.free[i])
        throw InputError("--free", "'" + opt.free[i] + "' is named twice", "each parameter once");
  }
  if (m.points.size() < opt.free.size())
    throw InputError(m.path, "",
                     std::to_string(m.points.size()) + " points cannot fit " +
                         std::to_string(opt.free.size()) + " free parameters",
                     "at least as many points as parameters (more, for uncertainties)");
  ClusterFit fit;
  fit.names = opt.free;
  for (const auto& n : opt.free) {
    auto it = opt.start.find(n);
    const double v = it != opt.start.end() ? it->second : profile_parameter(base, n);
    if (!(v > 0))
      throw InputError(base.path, n, "start value " + fmt(v) + " is not positive", "a value > 0");
    fit.start.push_back(v);
  }
  const AnalyticEngine analytic;
  const Engine& engine = opt.engine ? *opt.engine : analytic;
  int evaluations = 0;
  const auto residuals_with = [&](const Engine& e) {
    return [&](const std::vector<double>& v) {
      const Profile p = with_parameters(base, fit.names, v);
      std::vector<double> r = map_points(m.points.size(), opt.threads, [&](std::size_t i) {
        const MeasurementPoint& pt = m.points[i];
        return predict_iteration_s(p, m.networks.at(pt.model), pt, opt.cluster, e) /
                   pt.iteration_s - 1;
      });
      ++evaluations;
      if (opt.progress) {
        double ss = 0;
        for (double x : r) ss += x * x;
        opt.progress(evaluations, ss);
      }
      return r;
    };
  };
  // Physical ranges: a parameter the points do not limit stops at one and is reported so.
  LmOptions lm = opt.lm;
  lm.lower.clear();
  lm.upper.clear();
  for (const auto& n : fit.names) {
    fit.ranges.push_back(parameter_range(base, n));
    lm.lower.push_back(fit.ranges.back().first);
    lm.upper.push_back(fit.ranges.back().second);
  }
  for (std::size_t i = 0; i < fit.start.size(); ++i)
    fit.start[i] = std::clamp(fit.start[i], lm.lower[i], lm.upper[i]);
  // Deterministic multi-start (see ClusterFitOptions::restarts), with the fast engine when
  // the predicting engine is slow and analytic_first is set.
  const bool two_stage = opt.engine && !capabilities_of(opt.engine->name()).closed_form && opt.analytic_first;
  const Engine& search = two_stage ? static_cast<const Engine&>(analytic) : engine;
  const ResidualFn search_fn = residuals_with(search);
  std::mt19937_64 rng(20170712);
  const auto uniform = [&rng] { return double(rng() >> 11) * 0x1.0p-53; };
  for (int k = 0; k <= std::max(0, opt.restarts); ++k) {
    std::vector<double> s0 = fit.start;
    if (k > 0)
      for (double& v : s0) v *= std::exp((2 * uniform() - 1) * std::log(std::max(opt.spread, 1.0)));
    LmResult r;
    try {
      r = levenberg_marquardt(search_fn, s0, lm);
    } catch (const std::runtime_error&) {
      continue;  // a start where the model cannot be evaluated
    }
    ++fit.starts_tried;
    if (fit.starts_tried == 1 || r.ssr < fit.lm.ssr) {
      fit.lm = std::move(r);
      fit.best_start = k;
    }
  }
  if (fit.starts_tried == 0)
    throw std::runtime_error("fit: the model could not be evaluated from any start");
  if (two_stage) fit.lm = levenberg_marquardt(residuals_with(engine), fit.lm.values, lm);
  fit.values = fit.lm.values;
  fit.sigma = fit.lm.sigma;
  fit.correlation = fit.lm.correlation;
  // A log-variance past FitCovariance::kMaxLogVariance (a 1-sigma factor of e^5) is a flat
  // direction of the residuals too: the points leave the parameter open, as with sigma = inf.
  for (std::size_t i = 0; i < fit.sigma.size() && i < fit.lm.log_covariance.size(); ++i)
    if (!(fit.lm.log_covariance[i][i] <= FitCovariance::kMaxLogVariance)) {
      fit.sigma[i] = std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < fit.correlation.size(); ++j)  // no meaningful correlation
        if (j != i) fit.correlation[i][j] = fit.correlation[j][i] = std::numeric_limits<double>::quiet_NaN();
    }

  Profile p = with_parameters(base, fit.names, fit.values);
  fit.points = predict_points(p, m, opt.cluster, engine, opt.threads);
  double ss = 0;
  for (const auto& r : fit.points) ss += r.residual * r.residual;
  fit.rms_residual = std::sqrt(ss / double(fit.points.size()));

  // The precisions the points trained at, as Profile::compute_fits reads them back.
  std::string precisions;
  for (const std::string& name : precision_names())
    if (std::any_of(m.points.begin(), m.points.end(),
                    [&](const MeasurementPoint& pt) { return name == to_string(pt.precision); }))
      precisions += (precisions.empty() ? "" : " ") + name;
  const std::string how =
      "fitted by possim calibrate fit (" + std::string(engine.name()) + " engine) to " + m.path + " [precisions: " +
      precisions + "]" +
      " (" + counted(long(m.points.size()), "point") + ", " + counted(long(fit.names.size()), "free parameter") +
      ", Levenberg-Marquardt on relative residuals, best of " +
      counted(fit.starts_tried, "start") + (two_stage ? " with the analytic engine" : "") +
      "; RMS residual " + fmt(100 * fit.rms_residual) + "%)";
  std::string all_peaks, tf32_peak;  // the tensor-core peaks' two factors, said in one source
  for (std::size_t i = 0; i < fit.names.size(); ++i) {
    const int b = fit.lm.at_bound.at(i);
    const std::string value = b != 0
                                  ? fmt(fit.values[i]) + " (at the " + (b < 0 ? "lower" : "upper") +
                                        " end of its range: not determined by these points)"
                              : !std::isfinite(fit.sigma[i])
                                  ? fmt(fit.values[i]) + " (not determined by these points)"
                                  : fmt(fit.values[i]) + " +/- " + fmt(fit.sigma[i]) + " (1 sigma)";
    const auto [stack, n] = split_name(fit.names[i]);
    const std::string fitted = bounded(value + ", " + how, 1500);
    if (n == "tensor_core_scale") {
      all_peaks = fitted;
    } else if (n == "tf32_scale") {
      tf32_peak = fitted;
    } else if (n == "memory_bound_scale") {
      // The derivation's text kept (conv and fc still come from it), the fit said after it.
      const auto it = base.sources.find("kind_efficiency");
      p.sources["kind_efficiency"] = bounded(it == base.sources.end() ? "" : it->second, 2400) +
                                     " Then the memory-bound kinds (all but conv and fc) x memory_bound_scale " +
                                     fitted;
    } else if (n == "compute_scale") {
      const std::string s = "base profile " + base.name + " x compute_scale " + fitted;
      p.sources["peak_flops_per_s"] = s;
      if (!p.measured.empty())
        p.sources["measured"] =
            "layer times of base profile " + base.name + " / compute_scale " + fitted;
      if (!p.throughput.empty())
        p.sources["throughput"] =
            "points of base profile " + base.name + " x compute_scale " + fitted;
    } else {
      // Written whole: the base's text held its own figure and how it was got (an earlier
      // fit, "copied unchanged from base profile ..."), none of which holds any more.
      std::string& src = stack.empty() ? p.sources[n] : p.stacks[stack].sources[n];
      src = parameter_mechanism(n) + " -- fitted: " + fitted;
    }
  }
  if (!all_peaks.empty() || !tf32_peak.empty())
    p.sources["peak_flops_per_s_by_precision"] =
        "base profile " + base.name + "'s tensor-core peaks" +
        (all_peaks.empty() ? "" : " x tensor_core_scale " + all_peaks) +
        (tf32_peak.empty() ? "" : std::string(all_peaks.empty() ? "," : ";") + " the tf32 peak further x tf32_scale " +
                                      tf32_peak);
  p.fit_covariance = merged_covariance(base, fit, m.path, engine.name());
  fit.fitted = p;
  check_loadable(base, fit);
  return fit;
}

}  // namespace possim::calibrate
