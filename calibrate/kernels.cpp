#include "calibrate/kernels.hpp"
#include "calibrate/fit_quality.hpp"

#include "kernels/timing.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

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

// What the measured block's source adds where the layers were scaled to a queued step
// (scale_to_queued_step, queued_step.hpp); "" where they were not.
std::string queued_step_note(const KernelCalibration& cal) {
  if (!(cal.queued_step_scale > 0)) return "";
  if (cal.step.queued_forward_s.empty())
    return "; then every layer scaled by " + fmt(cal.queued_step_scale) + " to a queued step: the back-to-back step (" +
           fmt(cal.step.back_to_back_s) + " s, median of " + std::to_string(cal.step.repeats) +
           ") / the summed kernel medians (" + fmt(cal.step.kernels_sum_s) +
           " s), the host time each kernel timed alone carries and a queue hides";
  return "; then each layer's passes as a queued step runs them: the median over " + std::to_string(cal.step.repeats) +
         " back-to-back steps of the time between marks around each pass (in all " + fmt(cal.queued_step_scale) +
         " of the summed kernel medians)";
}

// Everything that follows from the timings: achieved rates per kind, the whole model's
// per-layer seconds (untimed layers estimated), the rebuild rate, the copy line. Shared by a
// run on a backend and a recorded run read back (recorded_calibration).
void summarize(KernelCalibration& cal, const Network& net) {
  const int batch = cal.batch;
  const std::size_t n = net.layers.size();
  const std::size_t timed = cal.layers.size();
  cal.kind_flops_per_s.clear();
  cal.estimated_layers.clear();
  cal.measured = MeasuredModel{};
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
  cal.step.kernels_sum_s = 0;
  for (const LayerMeasurement& m : cal.layers) cal.step.kernels_sum_s += m.forward_s() + m.backward_s();

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

  double rf = 0, rs = 0;
  for (const RebuildTiming& r : cal.rebuild) {
    rf += r.time.flops;
    rs += r.time.median_s;
  }
  cal.rebuild_flops_per_s = rs > 0 ? rf / rs : 0;

  cal.copy_fit_ok = false;
  std::vector<double> x, y;
  for (const CopyPoint& c : cal.copies)
    if (c.pinned) x.push_back(c.bytes), y.push_back(c.median_s);
  std::set<double> distinct(x.begin(), x.end());
  if (distinct.size() >= 2) {
    cal.copy_fit = fit_line_nonnegative(x, y);  // a fixed cost is never negative: clamped, slope refitted
    cal.copy_fit_ok = cal.copy_fit.slope > 0;
  }
}

// StepTiming (kernels.hpp): every layer prepared, then whole steps, waited per pass and back
// to back in turn; the prepared layers are freed before returning.
StepTiming time_step(const Network& net, int batch, const std::vector<bool>& input_grad, KernelBackend& backend,
                     const KernelRunOptions& opt, const std::function<void(const std::string&)>& say) {
  std::vector<std::unique_ptr<PreparedLayer>> layers;
  for (std::size_t i = 0; i < net.layers.size(); ++i)
    layers.push_back(backend.prepare_layer(net.layers[i], batch, input_grad[i]));
  const std::size_t n = layers.size();
  // Per layer, the back-to-back steps' times between the marks around its passes.
  std::vector<std::vector<double>> fwd(n), bwd(n);
  const auto step = [&](bool wait_each, bool keep) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!wait_each) backend.mark();
    for (auto& l : layers) {
      if (wait_each) l->forward();
      else l->launch_forward(), backend.mark();
    }
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) {
      if (wait_each) (*it)->backward();
      else (*it)->launch_backward(), backend.mark();
    }
    backend.synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!wait_each) {
      const std::vector<double> passes = backend.marked_intervals_s();
      if (passes.size() != 2 * n)
        throw std::runtime_error("step timing: " + std::to_string(passes.size()) + " intervals between marks for " +
                                 std::to_string(2 * n) + " passes");
      for (std::size_t i = 0; keep && i < n; ++i) {
        fwd[i].push_back(passes[i]);
        bwd[i].push_back(passes[2 * n - 1 - i]);
      }
    }
    return s;
  };
  for (int i = 0; i < opt.timing.warmup; ++i) step(true, false), step(false, false);
  std::vector<double> waited, queued;
  for (int i = 0; i < opt.step_repeats; ++i) {
    waited.push_back(step(true, true));
    queued.push_back(step(false, true));
  }
  StepTiming t;
  t.repeats = opt.step_repeats;
  t.waited_s = median(waited);
  t.back_to_back_s = median(queued);
  t.waited_min_s = *std::min_element(waited.begin(), waited.end());
  t.back_to_back_min_s = *std::min_element(queued.begin(), queued.end());
  double passes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t.queued_forward_s.push_back(median(fwd[i]));
    t.queued_backward_s.push_back(median(bwd[i]));
    passes += t.queued_forward_s[i] + t.queued_backward_s[i];
  }
  say("step (" + std::to_string(t.repeats) + " of each): every pass waited for " + fmt(t.waited_s) +
      " s, back to back " + fmt(t.back_to_back_s) + " s (its passes' medians between marks sum to " + fmt(passes) +
      " s)");
  return t;
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

  // SF rebuild: one GEMM per FC layer with inner dimension batch x peers.
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
    cal.rebuild.push_back(r);
  }
  if (!opt.copy_sizes_bytes.empty()) {
    cal.copies = backend.time_copies(opt.copy_sizes_bytes, opt.timing);
    cal.copies_cross_a_bus = backend.copies_cross_a_bus();
  }
  if (opt.step_repeats > 0) {
    if (timed < n)
      say("step: not timed (only " + std::to_string(timed) + " of " + std::to_string(n) + " layers were)");
    else
      cal.step = time_step(net, batch, input_grad, backend, opt, say);
  }
  summarize(cal, net);
  if (cal.copy_fit_ok)
    say(std::string(cal.copies_cross_a_bus ? "host<->device copies" : "host memcpy") + ": " +
        fmt(cal.copy_fit.rate() / 1e9) + " GB/s, " + fmt(cal.copy_fit.intercept * 1e6) + " us fixed");
  cal.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return cal;
}

Profile calibrated_profile(const Profile& base, const KernelCalibration& cal,
                           const std::string& name, bool keep_base_throughput) {
  Profile p = base;
  // The base's fit covariance describes the base's compute (compute_scale) and the
  // parameters fitted with it; measured kernels replace that compute, so it no longer holds.
  p.fit_covariance = {};
  const std::string from_base =
      "from base profile " + base.name + " (" + base.path + "); not measured by calibrate kernels";
  // Start with every field attributed to the base (with the base's own note of how it was
  // made, once: a chain of calibrations keeps the first), then overwrite what was measured.
  for (const char* f :
       {"pcie_bytes_per_s", "pcie_latency_s", "d2d_bytes_per_s", "tcp_goodput", "per_message_s",
        "server_apply_bytes_per_s", "quantize_bytes_per_s", "per_iteration_s"})
    if (!p.sources.count(f)) p.sources[f] = from_base;
  if (base.name != name)  // a chain of runs into one profile keeps its notes as they are
    for (auto& [f, note] : p.sources)
      if (note.rfind("from base profile ", 0) != 0) note = "from base profile " + base.name + ": " + note;
  p.name = name;
  const std::string precision = cal.backend_info.value("precision", std::string("fp32"));

  const std::string how =
      "possim calibrate kernels on " + cal.device + ", " + cal.backend + " backend (" + precision + "), batch " +
      std::to_string(cal.batch) + ": median of " + std::to_string(cal.timing.repeats) +
      " timed runs after " + std::to_string(cal.timing.warmup) +
      " warm-up per kernel; forward = forward kernels, backward = backward-data + "
      "backward-filter (+ bias); kernels, algorithms and library versions in the "
      "calibration sidecar" + queued_step_note(cal);
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
  // The device, with the precisions of the timings it holds ("fp32, bf16").
  std::string precisions;
  for (const std::string& name : possim::precision_names())
    if (std::any_of(p.measured.begin(), p.measured.end(), [&](const MeasuredModel& x) {
          return to_string(x.precision) == name && x.source.find(cal.device) != std::string::npos;
        }))
      precisions += (precisions.empty() ? "" : ", ") + name;
  p.device = cal.device + " [" + cal.backend + " backend, " + (precisions.empty() ? precision : precisions) + "]";
  std::string others;
  for (const MeasuredModel& x : p.measured)
    if (&x != &p.measured.back())
      others += (others.empty() ? "" : ", ") + x.model + " at batch " + std::to_string(x.batch) + " in " +
                to_string(x.precision);
  p.sources["measured"] = "per-layer seconds of " + cal.model + " at batch " + std::to_string(cal.batch) + " by " + how +
                          (others.empty() ? std::string() : "; and, each with its own source, " + others);

  // Peak = the fastest achieved rate of any kind; each measured kind's efficiency relative to it.
  // A kind the model lacks keeps the base's achieved rate (its efficiency rescaled to the new
  // peak). Tensor-core kernels (tf32, bf16) fill that math's peak and its conv/fc efficiencies:
  // the fp32 fields stay the base's (memory-bound kinds run at the fp32 rate scaled by bytes).
  const std::string queued = cal.queued_step_scale > 0 ? " (in a queued step, as the measured block)" : "";
  const possim::Precision prec = m.precision;
  const bool tensor = prec != possim::Precision::fp32;
  const std::string math = math_of(prec);
  double peak = 0;
  for (const auto& [k, r] : cal.kind_flops_per_s)
    if (!tensor || k == LayerKind::conv || k == LayerKind::fc) peak = std::max(peak, r);
  if (peak > 0 && tensor) {
    const double old_peak = base.peak_for(prec);
    p.peak_flops_by_math[math] = peak;
    std::map<LayerKind, double> eff;
    std::string kinds;
    for (LayerKind k : {LayerKind::conv, LayerKind::fc})
      if (auto it = cal.kind_flops_per_s.find(k); it != cal.kind_flops_per_s.end()) {
        eff[k] = std::clamp(it->second / peak, 1e-9, 1.0);
        kinds += std::string(kinds.empty() ? "" : ", ") + to_string(k);
      }
    p.kind_efficiency_by_math[math] = eff;
    p.sources["peak_flops_per_s_by_precision"] =
        "the " + math + " peak is not a datasheet peak: the fastest achieved " + math + " rate of conv or fc in the " +
        cal.model + " calibration" + queued + " (" + fmt(peak) + " FLOP/s; base profile had " +
        (old_peak > 0 ? fmt(old_peak) : std::string("none")) + "); other maths from base " + base.name;
    // Each math's efficiencies have their own "; "-separated note: this math's is replaced.
    const auto old_notes = base.sources.find("kind_efficiency_by_precision");
    const std::string all = old_notes == base.sources.end() ? "" : old_notes->second, own = "the " + math + " ";
    std::string notes;
    for (std::size_t at = 0; at <= all.size();) {
      const std::size_t end = std::min(all.find("; ", at), all.size());
      const std::string seg = all.substr(at, end - at);
      const std::size_t colon = seg.rfind("from base profile ", 0) == 0 ? seg.find(": ") : std::string::npos;
      const std::string bare = colon == std::string::npos ? seg : seg.substr(colon + 2);
      if (!seg.empty() && bare.rfind(own, 0) != 0) notes += (notes.empty() ? "" : "; ") + seg;
      at = end + 2;
    }
    p.sources["kind_efficiency_by_precision"] = notes + (notes.empty() ? "" : "; ") + own + "efficiencies of " + kinds +
                                                ": achieved " + math + " FLOP/s of the timed layers of " + cal.model + queued +
                                                " / that peak";
  } else if (peak > 0) {
    const double old_peak = base.peak_flops_per_s;
    p.peak_flops_per_s = peak;
    // A tensor math without efficiencies of its own ran at its peak x the fp32 efficiencies;
    // those now describe this run's fp32 rates, so it keeps the base's conv and fc ones.
    for (const auto& [tmath, tpeak] : base.peak_flops_by_math)
      if (!base.kind_efficiency_by_math.count(tmath) || base.kind_efficiency_by_math.at(tmath).empty()) {
        auto& e = p.kind_efficiency_by_math[tmath];
        for (LayerKind k : {LayerKind::conv, LayerKind::fc})
          if (base.kind_efficiency.count(k)) e[k] = base.kind_efficiency.at(k);
        p.sources["kind_efficiency_by_precision"] +=
            std::string(p.sources["kind_efficiency_by_precision"].empty() ? "" : "; ") + "the " + tmath +
            " efficiencies of conv and fc: base " + base.name + "'s fp32 ones, which its " + tmath + " runs used";
      }
    std::string measured_kinds, kept;
    for (LayerKind k : {LayerKind::conv, LayerKind::fc, LayerKind::bn, LayerKind::pool,
                        LayerKind::relu, LayerKind::lrn, LayerKind::concat, LayerKind::add,
                        LayerKind::dropout, LayerKind::softmax}) {
      auto it = cal.kind_flops_per_s.find(k);
      if (it != cal.kind_flops_per_s.end()) {
        p.kind_efficiency[k] = std::clamp(it->second / peak, 1e-9, 1.0);
        measured_kinds += std::string(measured_kinds.empty() ? "" : ", ") + to_string(k);
      } else if (base.kind_efficiency.count(k)) {
        p.kind_efficiency[k] = std::clamp(base.kind_efficiency.at(k) * old_peak / peak, 1e-9, 1.0);  // at most the peak
        kept += std::string(kept.empty() ? "" : ", ") + to_string(k);
      }
    }
    p.sources["peak_flops_per_s"] =
        "not a datasheet peak: the fastest achieved rate of any layer kind in the " + cal.model +
        " calibration" + queued + " (" + fmt(peak) + " FLOP/s; base profile had " + fmt(old_peak) + ")";
    p.sources["kind_efficiency"] =
        "achieved FLOP/s of each kind / peak_flops_per_s, from the timed layers of " + cal.model + queued +
        " (zoo FLOP counts): " + measured_kinds +
        (kept.empty() ? std::string()
                      : "; not in the model, the achieved rate of base " + base.name + " kept (at most the new peak): " + kept);
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

  // The rebuild at a tensor math runs at the fp32 rate x the peaks' ratio (Profile::
  // rebuild_flops_at_precision): a tf32/bf16 run's rebuild GEMMs are in the sidecar only.
  if (!tensor && cal.rebuild_flops_per_s > 0) {
    p.rebuild_flops_per_s = cal.rebuild_flops_per_s;
    std::string layers;
    for (const auto& r : cal.rebuild) layers += (layers.empty() ? "" : ", ") + r.layer;
    p.sources["rebuild_flops_per_s"] =
        "SF rebuild GEMM ([M x K] x [K x N], K = " + std::to_string(cal.rebuild.front().k) +
        ") timed for " + layers + ": total FLOPs / total median seconds";
  } else if (!tensor) {
    p.sources["rebuild_flops_per_s"] = from_base + " (the model has no FC layer)";
  }

  if (cal.copy_fit_ok && cal.copies_cross_a_bus) {
    p.pcie_bytes_per_s = cal.copy_fit.rate();
    p.pcie_latency_s = std::max(0.0, cal.copy_fit.intercept);
    const std::string fit =
        "least-squares line seconds = latency + bytes / rate over pinned host<->device "
        "copies (both directions, " +
        std::to_string(cal.copy_fit.points) + " points, R^2 " + fmt(cal.copy_fit.r2) +
        (cal.copy_fit.clamped_intercept < 0
             ? "; the free line's latency " + fmt(cal.copy_fit.clamped_intercept * 1e6) +
                   " us was negative, so latency is 0 and the rate refitted through the origin"
             : std::string()) +
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
      {"device", cal.device},
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
  if (cal.queued_step_scale > 0) j["queued_step_scale"] = cal.queued_step_scale;
  if (cal.step.repeats > 0) {
    j["step"] = {{"repeats", cal.step.repeats},
                 {"kernels_sum_s", cal.step.kernels_sum_s},
                 {"waited_s", cal.step.waited_s},
                 {"waited_min_s", cal.step.waited_min_s},
                 {"back_to_back_s", cal.step.back_to_back_s},
                 {"back_to_back_min_s", cal.step.back_to_back_min_s},
                 {"how",
                  "whole steps on the prepared layers (forward passes in order, backward in reverse), host wall "
                  "clock, median of repeats after the warm-up: waited_s waits for every pass before launching the "
                  "next (possim's live kernels), back_to_back_s queues them all and waits once; kernels_sum_s sums "
                  "the layers' medians timed one by one; queued_layers: per layer, the median over the back-to-back "
                  "steps of the time between the marks (GPU: events on the stream) around its forward and its "
                  "backward pass"}};
    // Runs recorded before the marks have no per-layer times: the key stays out.
    json& queued = j["step"]["queued_layers"] = json::array();
    for (std::size_t i = 0; i < cal.step.queued_forward_s.size(); ++i)
      queued.push_back({{"layer", cal.layers.at(i).layer},
                        {"forward_s", cal.step.queued_forward_s[i]},
                        {"backward_s", cal.step.queued_backward_s[i]}});
    if (queued.empty()) j["step"].erase("queued_layers");
  }
  return j;
}

namespace {

KernelTime kernel_from(const json_check::Reader& r, const json& j, const std::string& at) {
  r.object(j, at, "a recorded kernel");
  r.only_known(j, at, {"kernel", "median_s", "min_s", "max_s", "repeats", "algorithm", "flops", "flops_per_s"});
  KernelTime k;
  k.kernel = r.label(r.require(j, at, "kernel", "a kernel name"), at + ".kernel", 64, "a kernel name");
  const auto sec = [&](const char* f) {
    return r.number(r.require(j, at, f, "seconds"), at + "." + f, 0, 1e6, "seconds in [0, 1e6]");
  };
  k.median_s = sec("median_s");
  k.min_s = sec("min_s");
  k.max_s = sec("max_s");
  k.repeats = int(r.integer(r.require(j, at, "repeats", "a count"), at + ".repeats", 1, 1000000, "1 or more"));
  k.algorithm = r.label(r.require(j, at, "algorithm", "what ran"), at + ".algorithm", 512, "what ran");
  if (j.contains("flops")) k.flops = r.number(j["flops"], at + ".flops", 0, 1e21, "FLOPs in [0, 1e21]");
  return k;
}

}  // namespace

KernelCalibration recorded_calibration(const json& side, const Network& net, const std::string& where) {
  const json_check::Reader r(where);
  r.object(side, "", "a calibration sidecar (NAME.calibration.json of possim calibrate kernels)");
  if (side.value("kind", std::string()) != "kernels")
    r.fail("kind", "is not \"kernels\": not the sidecar of possim calibrate kernels", "\"kernels\"");
  KernelCalibration cal;
  cal.model = r.label(r.require(side, "", "model", "the model timed"), "model", 128, "the model timed");
  if (cal.model != net.name) r.fail("model", "'" + cal.model + "' is not " + net.name, net.name);
  cal.batch = int(r.integer(r.require(side, "", "batch", "images per GPU"), "batch", 1, limits::kMaxBatchPerGpu, "a batch"));
  cal.backend_info = r.object(r.require(side, "", "backend", "the backend's description"), "backend", "an object");
  cal.backend = r.label(r.require(cal.backend_info, "backend", "backend", "gpu or cpu"), "backend.backend", 16, "gpu or cpu");
  // The device as the backend named it ("device"; recordings before it: the backend's description).
  cal.device = side.contains("device") ? r.label(side["device"], "device", 256, "the device")
                                       : r.label(r.require(cal.backend_info, "backend", "device", "the device"),
                                                 "backend.device", 256, "the device");
  const json& timing = r.object(r.require(side, "", "timing", "warm-up and repeats"), "timing", "an object");
  cal.timing.warmup = int(r.integer(r.require(timing, "timing", "warmup", "a count"), "timing.warmup", 0, 1000000, ">= 0"));
  cal.timing.repeats = int(r.integer(r.require(timing, "timing", "repeats", "a count"), "timing.repeats", 1, 1000000, ">= 1"));

  const json& layers = r.array(r.require(side, "", "layers", "the timed layers"), "layers", "a list");
  if (layers.size() > net.layers.size()) r.fail("layers", "more layers than " + net.name + " has", "at most " + std::to_string(net.layers.size()));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string at = "layers[" + std::to_string(i) + "]";
    const json& l = r.object(layers[i], at, "a timed layer");
    LayerMeasurement m;
    m.layer = r.label(r.require(l, at, "layer", "its name"), at + ".layer", 256, "its name");
    if (m.layer != net.layers[i].name)
      r.fail(at + ".layer", "'" + m.layer + "' is not layer " + std::to_string(i) + " of " + net.name + " ('" +
                                net.layers[i].name + "')", "the model's layers in order");
    m.kind = net.layers[i].kind;
    for (const char* side_name : {"forward", "backward"}) {
      const std::string at2 = at + "." + side_name;
      const json& ks = r.array(r.require(l, at, side_name, "its kernels"), at2, "a list");
      for (std::size_t k = 0; k < ks.size(); ++k)
        (std::string(side_name) == "forward" ? m.forward : m.backward)
            .push_back(kernel_from(r, ks[k], at2 + "[" + std::to_string(k) + "]"));
    }
    cal.layers.push_back(std::move(m));
  }
  if (side.contains("rebuild")) {
    const json& rb = r.array(side["rebuild"], "rebuild", "a list");
    for (std::size_t i = 0; i < rb.size(); ++i) {
      const std::string at = "rebuild[" + std::to_string(i) + "]";
      const json& e = r.object(rb[i], at, "a rebuild timing");
      RebuildTiming t;
      t.layer = r.label(r.require(e, at, "layer", "the FC layer"), at + ".layer", 256, "the FC layer");
      const auto dim = [&](const char* f) {
        return std::int64_t(r.integer(r.require(e, at, f, "a dimension"), at + "." + f, 1, 1LL << 40, ">= 1"));
      };
      t.m = dim("m");
      t.n = dim("n");
      t.k = dim("k");
      t.time = kernel_from(r, r.require(e, at, "time", "its timing"), at + ".time");
      cal.rebuild.push_back(std::move(t));
    }
  }
  if (side.contains("copies")) {
    const json& c = r.object(side["copies"], "copies", "an object");
    if (c.contains("crosses_a_bus")) cal.copies_cross_a_bus = r.boolean(c["crosses_a_bus"], "copies.crosses_a_bus", "true or false");
    const json& pts = c.contains("points") ? r.array(c["points"], "copies.points", "a list") : json::array();
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const std::string at = "copies.points[" + std::to_string(i) + "]";
      const json& e = r.object(pts[i], at, "a copy timing");
      CopyPoint p;
      p.direction = r.choice(r.require(e, at, "direction", "h2d or d2h"), at + ".direction", {"h2d", "d2h"});
      p.pinned = r.boolean(r.require(e, at, "pinned", "true or false"), at + ".pinned", "true or false");
      p.bytes = r.number(r.require(e, at, "bytes", "bytes"), at + ".bytes", 1, 1e15, "bytes in [1, 1e15]");
      // 0 is what a clock too coarse for a tiny copy records: the writer writes it, so it reads.
      p.median_s = r.number(r.require(e, at, "median_s", "seconds"), at + ".median_s", 0, 1e6, "seconds in [0, 1e6]");
      cal.copies.push_back(p);
    }
  }
  if (side.contains("wall_s")) cal.wall_s = r.number(side["wall_s"], "wall_s", 0, 1e9, "seconds");
  if (side.contains("step")) {
    const json& st = r.object(side["step"], "step", "an object");
    r.only_known(st, "step", {"repeats", "kernels_sum_s", "waited_s", "waited_min_s", "back_to_back_s",
                              "back_to_back_min_s", "queued_layers", "how"});
    cal.step.repeats = int(r.integer(r.require(st, "step", "repeats", "a count"), "step.repeats", 1, 1000000, ">= 1"));
    const auto sec = [&](const char* f) {
      return r.number(r.require(st, "step", f, "seconds"), std::string("step.") + f, 0, 1e6, "seconds in (0, 1e6]",
                      /*lo_open=*/true);
    };
    cal.step.waited_s = sec("waited_s");
    cal.step.waited_min_s = sec("waited_min_s");
    cal.step.back_to_back_s = sec("back_to_back_s");
    cal.step.back_to_back_min_s = sec("back_to_back_min_s");
    // Every layer's passes in the queue (recordings before them have none): the step timed
    // every layer, so one entry per layer of the model, in its order.
    if (st.contains("queued_layers")) {
      const json& q = r.array(st["queued_layers"], "step.queued_layers", "a list");
      if (q.size() != net.layers.size() || layers.size() != net.layers.size())
        r.fail("step.queued_layers", std::to_string(q.size()) + " entries for " + std::to_string(net.layers.size()) +
                                         " layers (" + std::to_string(layers.size()) + " timed)",
               "one per layer of " + net.name + ", every layer timed");
      for (std::size_t i = 0; i < q.size(); ++i) {
        const std::string at = "step.queued_layers[" + std::to_string(i) + "]";
        r.object(q[i], at, "a layer's queued passes");
        r.only_known(q[i], at, {"layer", "forward_s", "backward_s"});
        const std::string name = r.label(r.require(q[i], at, "layer", "its name"), at + ".layer", 256, "its name");
        if (name != net.layers[i].name)
          r.fail(at + ".layer", "'" + name + "' is not layer " + std::to_string(i) + " of " + net.name, net.layers[i].name);
        const auto sec = [&](const char* f) {
          return r.number(r.require(q[i], at, f, "seconds"), at + "." + f, 0, 1e6, "seconds in [0, 1e6]");
        };
        cal.step.queued_forward_s.push_back(sec("forward_s"));
        cal.step.queued_backward_s.push_back(sec("backward_s"));
      }
    }
  }
  summarize(cal, net);
  return cal;
}

OptimizerRate optimizer_rate(const json& roofline, const std::string& where) {
  const json_check::Reader r(where);
  r.object(roofline, "", "a roofline file (possim calibrate roofline --out)");
  if (roofline.value("format", std::string()) != "possim-roofline-1")
    r.fail("format", "is not possim-roofline-1", "a file of possim calibrate roofline");
  const json& copy = r.object(r.require(roofline, "", "device_copy", "the device copy"), "device_copy", "an object");
  const double rate = r.number(r.require(copy, "device_copy", "bytes_per_s_read_plus_write", "bytes/s"),
                               "device_copy.bytes_per_s_read_plus_write", 0, 1e15, "bytes/s in (0, 1e15]",
                               /*lo_open=*/true);
  const std::string device = roofline.value("device", std::string("?"));
  return {rate, "the optimizer step's memory traffic at the device copy rate measured by possim calibrate roofline on " +
                    device + " (" + where + "): " + fmt(rate) +
                    " B/s read plus written; the layer timings of calibrate kernels leave the optimizer out"};
}

void OptimizerRate::apply_to(Profile& p) const {
  p.optimizer_bytes_per_s = bytes_per_s;
  p.sources["optimizer_bytes_per_s"] = source;
}

}  // namespace possim::calibrate
