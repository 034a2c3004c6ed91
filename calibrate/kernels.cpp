#include "calibrate/kernels.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace possim::calibrate {

using nlohmann::json;

namespace {

std::string fmt(double x, const char* f = "%.4g") {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

json kernel_json(const KernelTime& k) {
  json j = {{"kernel", k.kernel}, {"median_s", k.median_s}, {"min_s", k.min_s},
            {"max_s", k.max_s},   {"repeats", k.repeats},   {"algorithm", k.algorithm}};
  if (k.flops > 0) {
    j["flops"] = k.flops;
    if (k.median_s > 0) j["flops_per_s"] = k.flops / k.median_s;
  }
  return j;
}

}  // namespace

std::vector<double> KernelRunOptions::default_copy_sizes() {
  std::vector<double> s;
  for (double b = 4096; b <= 64.0 * 1024 * 1024; b *= 4) s.push_back(b);
  return s;
}

KernelCalibration calibrate_kernels(const Network& net, int batch, KernelBackend& backend,
                                    const KernelRunOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  KernelCalibration cal;
  cal.model = net.name;
  cal.batch = batch;
  cal.backend = backend.name();
  cal.device = backend.device();
  cal.backend_info = backend.describe();
  cal.timing = opt.timing;
  const auto say = [&](const std::string& s) {
    if (opt.progress) opt.progress(s);
  };

  const std::vector<bool> input_grad = needs_input_grad(net);
  const std::size_t n = net.layers.size();
  const std::size_t timed =
      opt.max_layers > 0 ? std::min<std::size_t>(n, std::size_t(opt.max_layers)) : n;
  for (std::size_t i = 0; i < timed; ++i) {
    const Layer& l = net.layers[i];
    LayerMeasurement m = backend.time_layer(l, batch, input_grad[i], opt.timing);
    say("[" + std::to_string(i + 1) + "/" + std::to_string(n) + "] " + l.name + " (" +
        to_string(l.kind) + "): forward " + fmt(m.forward_s()) + " s, backward " +
        fmt(m.backward_s()) + " s");
    cal.layers.push_back(std::move(m));
  }

  // Achieved FLOP/s per kind over the timed layers (the zoo's FLOP counts per image).
  std::map<LayerKind, std::pair<double, double>> work;  // kind -> (flops, seconds)
  for (std::size_t i = 0; i < timed; ++i) {
    const Layer& l = net.layers[i];
    const double s = cal.layers[i].forward_s() + cal.layers[i].backward_s();
    auto& w = work[l.kind];
    w.first += batch * (l.fwd_flops + l.bwd_flops);
    w.second += s;
  }
  for (const auto& [k, w] : work)
    if (w.first > 0 && w.second > 0) cal.kind_flops_per_s[k] = w.first / w.second;

  cal.measured.model = net.name;
  cal.measured.batch = batch;
  for (std::size_t i = 0; i < n; ++i) {
    const Layer& l = net.layers[i];
    LayerTiming t;
    t.layer = l.name;
    if (i < timed) {
      t.forward_s = cal.layers[i].forward_s();
      t.backward_s = cal.layers[i].backward_s();
    } else {
      // Not timed (--layers): the achieved rate of the layer's kind, else of all timed layers.
      double rate = 0;
      if (auto it = cal.kind_flops_per_s.find(l.kind); it != cal.kind_flops_per_s.end())
        rate = it->second;
      if (rate <= 0) {
        double f = 0, s = 0;
        for (const auto& [k, w] : work) f += w.first, s += w.second;
        rate = s > 0 ? f / s : 0;
      }
      t.forward_s = rate > 0 ? batch * l.fwd_flops / rate : 0;
      t.backward_s = rate > 0 ? batch * l.bwd_flops / rate : 0;
      cal.estimated_layers.push_back(l.name);
    }
    cal.measured.layers.push_back(t);
  }

  // SF rebuild: one GEMM per FC layer with inner dimension batch x peers.
  double rf = 0, rs = 0;
  for (std::size_t i = 0; i < timed; ++i) {
    const Layer& l = net.layers[i];
    if (l.kind != LayerKind::fc) continue;
    RebuildTiming r;
    r.layer = l.name;
    r.m = l.fc_m;
    r.n = l.fc_n;
    r.k = std::int64_t(batch) * std::max(1, opt.rebuild_peers);
    r.time = backend.time_rebuild(r.m, r.n, r.k, opt.timing);
    say("rebuild " + l.name + " (" + std::to_string(r.m) + " x " + std::to_string(r.k) + " x " +
        std::to_string(r.n) + "): " + fmt(r.time.median_s) + " s, " +
        fmt(r.time.flops / r.time.median_s) + " FLOP/s");
    rf += r.time.flops;
    rs += r.time.median_s;
    cal.rebuild.push_back(r);
  }
  cal.rebuild_flops_per_s = rs > 0 ? rf / rs : 0;

  // Copy curve, then latency + bytes/bandwidth over the pinned points.
  if (!opt.copy_sizes_bytes.empty()) {
    cal.copies = backend.time_copies(opt.copy_sizes_bytes, opt.timing);
    cal.copies_cross_a_bus = backend.copies_cross_a_bus();
    std::vector<double> x, y;
    for (const CopyPoint& c : cal.copies)
      if (c.pinned) x.push_back(c.bytes), y.push_back(c.median_s);
    std::set<double> distinct(x.begin(), x.end());
    if (distinct.size() >= 2) {
      cal.copy_fit = fit_line(x, y);
      cal.copy_fit_ok = cal.copy_fit.slope > 0;
    }
    if (cal.copy_fit_ok)
      say(std::string(cal.copies_cross_a_bus ? "host<->device copies" : "host memcpy") + ": " +
          fmt(cal.copy_fit.rate() / 1e9) + " GB/s, " + fmt(cal.copy_fit.intercept * 1e6) +
          " us fixed");
  }
  cal.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return cal;
}

Profile calibrated_profile(const Profile& base, const KernelCalibration& cal,
                           const std::string& name, bool keep_base_throughput) {
  Profile p = base;
  const std::string from_base =
      "from base profile " + base.name + " (" + base.path + "); not measured by calibrate kernels";
  // Start with every field attributed to the base, then overwrite what was measured.
  p.sources.clear();
  for (const char* f :
       {"pcie_bytes_per_s", "pcie_latency_s", "d2d_bytes_per_s", "tcp_goodput", "per_message_s",
        "server_apply_bytes_per_s", "quantize_bytes_per_s", "per_iteration_s"})
    p.sources[f] = from_base;
  p.name = name;
  const std::string precision = cal.backend_info.value("precision", std::string("fp32"));
  p.device = cal.device + " [" + cal.backend + " backend, " + precision + "]";

  const std::string how =
      "possim calibrate kernels, " + cal.backend + " backend (" + precision + "), batch " +
      std::to_string(cal.batch) + ": median of " + std::to_string(cal.timing.repeats) +
      " timed runs after " + std::to_string(cal.timing.warmup) +
      " warm-up per kernel; forward = forward kernels, backward = backward-data + "
      "backward-filter (+ bias); kernels, algorithms and library versions in the "
      "calibration sidecar";
  MeasuredModel m = cal.measured;
  m.source = how;
  // The kernels' math: bf16 kernels are what both bf16 and amp_bf16 runs execute.
  m.precision = possim::precision_from_string(precision).value_or(possim::Precision::fp32);
  if (!cal.estimated_layers.empty())
    m.source += "; only the first " + std::to_string(cal.layers.size()) + " of " +
                std::to_string(cal.measured.layers.size()) +
                " layers were timed (--layers), the rest are estimated from the achieved FLOP rate "
                "of their kind";
  // Replace any earlier timing of the same model and batch.
  p.measured.erase(std::remove_if(p.measured.begin(), p.measured.end(),
                                  [&](const MeasuredModel& x) {
                                    return x.model == m.model && x.batch == m.batch && x.precision == m.precision;
                                  }),
                   p.measured.end());
  p.measured.push_back(m);
  p.sources["measured"] =
      "per-layer seconds of " + cal.model + " at batch " + std::to_string(cal.batch) + " by " + how;

  // Peak = the fastest achieved rate of any kind; each measured kind's efficiency relative to it.
  double peak = 0;
  for (const auto& [k, r] : cal.kind_flops_per_s) peak = std::max(peak, r);
  if (peak > 0) {
    const double old_peak = base.peak_flops_per_s;
    p.peak_flops_per_s = peak;
    std::string measured_kinds, kept;
    for (LayerKind k : {LayerKind::conv, LayerKind::fc, LayerKind::bn, LayerKind::pool,
                        LayerKind::relu, LayerKind::lrn, LayerKind::concat, LayerKind::add,
                        LayerKind::dropout, LayerKind::softmax}) {
      auto it = cal.kind_flops_per_s.find(k);
      if (it != cal.kind_flops_per_s.end()) {
        p.kind_efficiency[k] = std::clamp(it->second / peak, 1e-9, 1.0);
        measured_kinds += std::string(measured_kinds.empty() ? "" : ", ") + to_string(k);
      } else if (base.kind_efficiency.count(k)) {
        kept += std::string(kept.empty() ? "" : ", ") + to_string(k);
      }
    }
    p.sources["peak_flops_per_s"] =
        "not a datasheet peak: the fastest achieved rate of any layer kind in the " + cal.model +
        " calibration (" + fmt(peak) + " FLOP/s; base profile had " + fmt(old_peak) + ")";
    p.sources["kind_efficiency"] =
        "achieved FLOP/s of each kind / peak_flops_per_s, from the timed layers of " + cal.model +
        " (zoo FLOP counts): " + measured_kinds +
        (kept.empty() ? std::string()
                      : "; not in the model, kept from base " + base.name + ": " + kept);
  } else {
    p.sources["peak_flops_per_s"] = from_base;
    p.sources["kind_efficiency"] = from_base;
  }

  if (!keep_base_throughput) {
    p.throughput.clear();
    p.sources["throughput"] = "empty: the base profile's points (" + base.name +
                              ") describe another device; the measured block covers " + cal.model;
  } else {
    p.sources["throughput"] = "kept from base profile " + base.name + " (--keep-throughput)";
  }

  if (cal.rebuild_flops_per_s > 0) {
    p.rebuild_flops_per_s = cal.rebuild_flops_per_s;
    std::string layers;
    for (const auto& r : cal.rebuild) layers += (layers.empty() ? "" : ", ") + r.layer;
    p.sources["rebuild_flops_per_s"] =
        "SF rebuild GEMM ([M x K] x [K x N], K = " + std::to_string(cal.rebuild.front().k) +
        ") timed for " + layers + ": total FLOPs / total median seconds";
  } else {
    p.sources["rebuild_flops_per_s"] = from_base + " (the model has no FC layer)";
  }

  if (cal.copy_fit_ok && cal.copies_cross_a_bus) {
    p.pcie_bytes_per_s = cal.copy_fit.rate();
    p.pcie_latency_s = std::max(0.0, cal.copy_fit.intercept);
    const std::string fit =
        "least-squares line seconds = latency + bytes / rate over pinned host<->device "
        "copies (both directions, " +
        std::to_string(cal.copy_fit.points) + " points, R^2 " + fmt(cal.copy_fit.r2) +
        "); the curve, pageable copies included, is in the sidecar";
    p.sources["pcie_bytes_per_s"] = fit;
    p.sources["pcie_latency_s"] = fit;
  } else if (cal.copy_fit_ok) {
    p.sources["pcie_bytes_per_s"] =
        from_base + " (the " + cal.backend +
        " backend has no PCIe bus; its host memcpy curve is in the sidecar)";
    p.sources["pcie_latency_s"] = p.sources["pcie_bytes_per_s"];
  }
  return p;
}

json kernel_sidecar(const KernelCalibration& cal, const Profile& base) {
  json layers = json::array();
  for (const LayerMeasurement& m : cal.layers) {
    json f = json::array(), b = json::array();
    for (const auto& k : m.forward) f.push_back(kernel_json(k));
    for (const auto& k : m.backward) b.push_back(kernel_json(k));
    layers.push_back({{"layer", m.layer},
                      {"kind", to_string(m.kind)},
                      {"forward_s", m.forward_s()},
                      {"backward_s", m.backward_s()},
                      {"forward", f},
                      {"backward", b}});
  }
  json rebuild = json::array();
  for (const auto& r : cal.rebuild)
    rebuild.push_back(
        {{"layer", r.layer}, {"m", r.m}, {"n", r.n}, {"k", r.k}, {"time", kernel_json(r.time)}});
  json copies = json::array();
  for (const auto& c : cal.copies)
    copies.push_back({{"direction", c.direction},
                      {"pinned", c.pinned},
                      {"bytes", c.bytes},
                      {"median_s", c.median_s},
                      {"bytes_per_s", c.bytes_per_s()}});
  json rates = json::object();
  for (const auto& [k, r] : cal.kind_flops_per_s) rates[to_string(k)] = r;
  json j = {
      {"kind", "kernels"},
      {"model", cal.model},
      {"batch", cal.batch},
      {"backend", cal.backend_info},
      {"timing",
       {{"warmup", cal.timing.warmup}, {"repeats", cal.timing.repeats}, {"statistic", "median"}}},
      {"base_profile", {{"name", base.name}, {"path", base.path}}},
      {"layers", layers},
      {"estimated_layers", cal.estimated_layers},
      {"achieved_flops_per_s_by_kind", rates},
      {"rebuild", rebuild},
      {"copies", {{"crosses_a_bus", cal.copies_cross_a_bus}, {"points", copies}}},
      {"wall_s", cal.wall_s}};
  if (cal.copy_fit_ok) j["copies"]["fit_pinned"] = to_json(cal.copy_fit);
  return j;
}

}  // namespace possim::calibrate
