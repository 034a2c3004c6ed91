// Device sheets and the roofline derivation of a profile for another GPU.
//
// The rule, per layer kind k (conv, fc, bn, pool, relu, lrn, concat, add, dropout, softmax):
//
//   R_b   = e_k x P_profile          achieved FLOP/s of kind k on the base GPU (the profile's
//                                    kind efficiency times its peak)
//   I_k   = R_b / (m x B_b)          the kind's arithmetic intensity in FLOP per DRAM byte,
//                                    taking the base's achieved rate as a point on the base's
//                                    memory roof (m = kAchievedMemoryFraction of the published
//                                    bandwidth B_b). For a memory-bound kind that is its
//                                    intensity; for a compute-bound kind it is the least
//                                    intensity that could have reached R_b, a lower bound.
//   memory roof on the new GPU:    I_k x m x B_n  (= R_b x B_n / B_b: m cancels)
//   compute roof on the new GPU:   conv, fc: R_b x P_n / P_b  (the same fraction of the
//                                    datasheet fp32 peak as on the base: the GEMM/cuDNN
//                                    kernels keep their efficiency)
//                                  memory-bound kinds: P_n (the peak itself)
//   R_n   = min(compute roof, memory roof, P_n);   e_n = R_n / P_n
//
// So conv and fc scale with fp32 peak unless the new GPU gained less bandwidth than FLOP/s
// (then the lower-bound intensity caps them: conservative), and the memory-bound kinds scale
// with bandwidth: their efficiency changes by (B_n / B_b) / (P_n / P_b).
//
// Other fields: rebuild_flops_per_s (one deep SGEMM, inner dimension (P1-1)K, so
// compute-bound) scales with the fp32 peak; quantize_bytes_per_s (a
// streaming pass) with B_n / B_b; pcie_bytes_per_s keeps the base's achieved fraction of
// its raw link rate (pcie_raw_bytes_per_s); d2d_bytes_per_s comes from NVLink when the new
// GPU has it (at the same achieved fraction of the link rate) and otherwise from PCIe peer
// copies (at the base's ratio of peer to host copies). The base's throughput points and
// measured per-layer timings are the base GPU's measurements: dropped, so layer times on
// the new GPU come from the FLOP model (rule 3 of Profile::layer_times). Everything else
// (TCP, messages, servers, the framework's fixed cost, the copy latency, fields this file
// does not know) describes the host software, network or driver: copied unchanged.
#include "model/input/profile_derive.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"

namespace possim {

namespace {

using json_check::Reader;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kFormat = "possim-device-1";

const std::vector<std::string> kTopFields = {"format",
                                             "name",
                                             "device",
                                             "fp32_flops_per_s",
                                             "tf32_flops_per_s",
                                             "fp16_flops_per_s",
                                             "bf16_flops_per_s",
                                             "memory_bytes_per_s",
                                             "memory_gb",
                                             "pcie",
                                             "nvlink_bytes_per_s",
                                             "interference_kernel_slowdown",
                                             "interference_comm_slowdown",
                                             "board_note"};

std::string g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

std::string text(const Reader& r, const json& v, const std::string& path) {
  const std::string s = r.label(v, path, limits::kMaxNoteChars, "a non-empty string");
  if (s.empty()) r.fail(path, "is empty", "a non-empty string");
  return s;
}

// "2017", "2017-06" or "2017-06-21".
std::string date(const Reader& r, const json& v, const std::string& path) {
  const std::string expected = "the document's date, e.g. \"2017-06\"";
  const std::string s = r.text(v, path, expected);
  const auto digits = [&](std::size_t from, std::size_t n) {
    for (std::size_t i = from; i < from + n; ++i)
      if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    return true;
  };
  const bool ok = (s.size() == 4 && digits(0, 4)) ||
                  (s.size() == 7 && digits(0, 4) && s[4] == '-' && digits(5, 2)) ||
                  (s.size() == 10 && digits(0, 4) && s[4] == '-' && digits(5, 2) && s[7] == '-' &&
                   digits(8, 2));
  if (!ok) r.fail(path, "\"" + s + "\" is not a date", expected);
  return s;
}

DeviceFigure figure(const Reader& r, const json& obj, const char* key, double hi,
                    const std::string& unit) {
  const std::string at = key;
  const std::string shape = "{value, source, date} with value in (0, " + g(hi) + "] " + unit;
  const json& e = r.object(r.require(obj, "", key, shape), at, shape);
  r.only_known(e, at, {"value", "source", "date"});
  DeviceFigure f;
  const std::string range = "a number in (0, " + g(hi) + "] " + unit;
  f.value = r.number(r.require(e, at, "value", range), at + ".value", 0, hi, range,
                     /*lo_open=*/true);
  f.source =
      text(r, r.require(e, at, "source", "the document that publishes the figure"), at + ".source");
  f.date = date(r, r.require(e, at, "date", "the document's date"), at + ".date");
  return f;
}

std::string cite(const DeviceFigure& f) { return f.source + " (" + f.date + ")"; }

// A path as the sources show it: relative to the source tree when inside it, so that
// shipped profiles do not carry the folder they were generated in.
std::string shown(const std::string& path) {
  const std::string root = std::string(POSSIM_SOURCE_DIR) + "/";
  return path.compare(0, root.size(), root) == 0 ? path.substr(root.size()) : path;
}

}  // namespace


double pcie_raw_bytes_per_s(int generation, int lanes) {
  if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16)
    throw std::invalid_argument("PCIe lanes must be 1, 2, 4, 8 or 16");
  double per_lane = 0;  // bytes/s, one direction
  switch (generation) {
    case 1:
      per_lane = 2.5e9 * 8 / 10 / 8;
      break;
    case 2:
      per_lane = 5e9 * 8 / 10 / 8;
      break;
    case 3:
      per_lane = 8e9 * 128 / 130 / 8;
      break;
    case 4:
      per_lane = 16e9 * 128 / 130 / 8;
      break;
    case 5:
      per_lane = 32e9 * 128 / 130 / 8;
      break;
    default:
      throw std::invalid_argument("PCIe generation must be 1 to 5");
  }
  return per_lane * lanes;
}

DeviceSheet parse_device_sheet(const std::string& json_text, const std::string& where) {
  const Reader r(where);
  json j = r.parse(json_text, "a possim-device-1 JSON object");
  if (!j.is_object()) r.fail("", "top level is " + std::string(j.type_name()), "a JSON object");
  r.only_known(j, "", kTopFields);
  const std::string format =
      text(r, r.require(j, "", "format", std::string("\"") + kFormat + "\""), "format");
  if (format != kFormat)
    r.fail("format", "\"" + format + "\" is not supported", std::string("\"") + kFormat + "\"");

  DeviceSheet d;
  d.path = where;
  d.name = text(r, r.require(j, "", "name", "a short device name"), "name");
  d.device = text(r, r.require(j, "", "device", "the device in words"), "device");
  // Bounds catch unit slips (TFLOP/s for FLOP/s, GB/s for B/s), not hardware.
  d.fp32_flops_per_s = figure(r, j, "fp32_flops_per_s", 1e17, "FLOP/s");
  if (d.fp32_flops_per_s.value < 1e9)
    r.fail("fp32_flops_per_s.value", g(d.fp32_flops_per_s.value) + " FLOP/s is implausibly low",
           "FLOP/s, not TFLOP/s (e.g. 15.7e12)");
  if (j.contains("tf32_flops_per_s"))
    d.tf32_flops_per_s = figure(r, j, "tf32_flops_per_s", 1e17, "FLOP/s");
  if (j.contains("fp16_flops_per_s"))
    d.fp16_flops_per_s = figure(r, j, "fp16_flops_per_s", 1e17, "FLOP/s");
  if (j.contains("bf16_flops_per_s"))
    d.bf16_flops_per_s = figure(r, j, "bf16_flops_per_s", 1e17, "FLOP/s");
  d.memory_bytes_per_s = figure(r, j, "memory_bytes_per_s", 1e14, "bytes/s");
  if (d.memory_bytes_per_s.value < 1e9)
    r.fail("memory_bytes_per_s.value",
           g(d.memory_bytes_per_s.value) + " bytes/s is implausibly low",
           "bytes/s, not GB/s (e.g. 900e9)");
  d.memory_gb = figure(r, j, "memory_gb", 1e5, "GB");
  if (j.contains("nvlink_bytes_per_s"))
    d.nvlink_bytes_per_s = figure(r, j, "nvlink_bytes_per_s", 1e14, "bytes/s, one direction");

  const std::string pshape = "{generation, lanes, source, date}";
  const json& pc = r.object(r.require(j, "", "pcie", pshape), "pcie", pshape);
  r.only_known(pc, "pcie", {"generation", "lanes", "source", "date"});
  d.pcie_generation = int(r.integer(r.require(pc, "pcie", "generation", "1 to 5"),
                                    "pcie.generation", 1, 5, "a PCIe generation 1 to 5"));
  d.pcie_lanes = int(r.integer(r.require(pc, "pcie", "lanes", "1, 2, 4, 8 or 16"), "pcie.lanes", 1,
                               16, "1, 2, 4, 8 or 16 lanes"));
  if (d.pcie_lanes != 1 && d.pcie_lanes != 2 && d.pcie_lanes != 4 && d.pcie_lanes != 8 &&
      d.pcie_lanes != 16)
    r.fail("pcie.lanes", std::to_string(d.pcie_lanes) + " is not a PCIe link width",
           "1, 2, 4, 8 or 16 lanes");
  d.pcie_source = text(r, r.require(pc, "pcie", "source", "the document"), "pcie.source");
  d.pcie_date = date(r, r.require(pc, "pcie", "date", "the document's date"), "pcie.date");
  for (auto [key, field] : {std::pair{"interference_kernel_slowdown", &DeviceSheet::interference_kernel_slowdown},
                            std::pair{"interference_comm_slowdown", &DeviceSheet::interference_comm_slowdown}}) {
    if (!j.contains(key)) continue;
    d.*field = figure(r, j, key, 100, "(a factor of time)");
    if ((d.*field)->value < 1)
      r.fail(std::string(key) + ".value", g((d.*field)->value) + " would speed the other up",
             "a slowdown in [1, 100] (1: none)");
  }
  if (j.contains("board_note")) d.board_note = r.label(j["board_note"], "board_note", limits::kMaxNoteChars, "a string");
  return d;
}

DeviceSheet load_device_sheet(const std::string& name_or_path, const std::string& base_dir) {
  const bool shipped =
      name_or_path.find('/') == std::string::npos &&
      !(name_or_path.size() >= 5 && name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
  const fs::path dir = fs::path(POSSIM_SOURCE_DIR) / "profiles" / "devices";
  const fs::path path = shipped ? dir / (name_or_path + ".json")
                                : (fs::path(base_dir) / name_or_path).lexically_normal();
  std::error_code exists_ec;
  if (shipped && !fs::exists(path, exists_ec)) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    throw InputError(path.string(), "", "no shipped device sheet named '" + name_or_path + "'",
                     "one of: " + json_check::list(names) + ", or a path to a device sheet");
  }
  // Through the door every input takes: a FIFO or /dev/zero is refused, not read for ever.
  return parse_device_sheet(read_input_file(path.string(), "device sheet", "an existing device sheet JSON"),
                            path.string());
}

namespace {

// Kind efficiencies through the roofline (see the top of this file); returns their source.
std::string derive_kind_efficiencies(Profile& p, const Profile& base, const DeviceSheet& bs,
                                     const DeviceSheet& t, const std::string& from) {
  const double Pb = bs.fp32_flops_per_s.value, Pn = t.fp32_flops_per_s.value;
  const double Bb = bs.memory_bytes_per_s.value, Bn = t.memory_bytes_per_s.value;
  const double m = kAchievedMemoryFraction;
  std::string kinds =
      from + "each kind's achieved rate on the base (R_b = efficiency x " +
      g(base.peak_flops_per_s) + " FLOP/s) is a roofline point: intensity I = R_b / (" + g(m) +
      " x " + g(Bb) +
      " B/s achieved DRAM bandwidth of the base); new rate "
      "R_n = min(compute roof, I x " +
      g(m) + " x " + g(Bn) + " B/s, " + g(Pn) + " FLOP/s peak), with compute roof = R_b x " +
      g(Pn) + " / " + g(Pb) +
      " for conv and fc (they keep their fraction of the fp32 peak) and the peak for "
      "the memory-bound kinds (which therefore scale with bandwidth, x " +
      g(Bn / Bb) + "); efficiency = R_n / " + g(Pn) + ". Per kind:";
  for (LayerKind k : kAllLayerKinds) {
    const auto it = base.kind_efficiency.find(k);
    const bool given = it != base.kind_efficiency.end();
    const double eb = given ? it->second : kDefaultMemoryBoundEfficiency;
    const double Rb = eb * base.peak_flops_per_s;
    const double I = Rb / (m * Bb);
    const double mem_roof = I * m * Bn;
    const bool cb = compute_bound_kind(k);
    const double comp_roof = cb ? Rb * Pn / Pb : Pn;
    const double Rn = std::min({comp_roof, mem_roof, Pn});
    p.kind_efficiency[k] = Rn / Pn;
    const char* bound = Rn == Pn ? "at the peak" : Rn == mem_roof ? "memory roof" : "compute roof";
    kinds += std::string(" ") + to_string(k) +
             (cb ? " (compute-bound kind)" : " (memory-bound kind)") + ": base " + g(eb) +
             (given ? "" : " (left out of the base: the default)") + " -> R_b " + g(Rb) + ", I " +
             (cb ? ">= " : "") + g(I) + " FLOP/B, compute roof " + g(comp_roof) + ", memory roof " +
             g(mem_roof) + " -> " + g(Rn) + " FLOP/s (" + bound + "), efficiency " + g(Rn / Pn) +
             ";";
  }
  return kinds;
}

// PCIe and the GPU-to-GPU path of the target, at the base's achieved fractions.
void derive_links(Profile& p, const Profile& base, const DeviceSheet& bs, const DeviceSheet& t,
                  const std::string& from, std::map<std::string, std::string>& src) {
  const double raw_b = pcie_raw_bytes_per_s(bs.pcie_generation, bs.pcie_lanes);
  const double raw_n = pcie_raw_bytes_per_s(t.pcie_generation, t.pcie_lanes);
  const double pcie_frac = base.pcie_bytes_per_s / raw_b;
  const auto link = [](const DeviceSheet& d) {
    return "PCIe " + std::to_string(d.pcie_generation) + ".0 x" + std::to_string(d.pcie_lanes);
  };
  p.pcie_bytes_per_s = raw_n * pcie_frac;
  src["pcie_bytes_per_s"] =
      from + link(t) + " (" + t.pcie_source + ", " + t.pcie_date + ") is " + g(raw_n) +
      " B/s raw per direction after line coding; the base reaches " + g(base.pcie_bytes_per_s) +
      " of its " + link(bs) + "'s " + g(raw_b) + " (" + g(pcie_frac) +
      " of raw: DMA and TLP overheads), kept: " + g(p.pcie_bytes_per_s) + " B/s.";

  if (t.nvlink_bytes_per_s) {
    // Achieved fraction of a link's rate: the base's own NVLink copies if it has NVLink,
    // else the base's PCIe fraction (no better figure in the base profile).
    const double frac =
        bs.nvlink_bytes_per_s ? base.d2d_bytes_per_s / bs.nvlink_bytes_per_s->value : pcie_frac;
    p.d2d_bytes_per_s = t.nvlink_bytes_per_s->value * frac;
    src["d2d_bytes_per_s"] =
        from + "NVLink, " + g(t.nvlink_bytes_per_s->value) +
        " B/s per direction over all of a GPU's links (" + cite(*t.nvlink_bytes_per_s) + ") x " +
        g(frac) + " achieved (" +
        (bs.nvlink_bytes_per_s ? "the base's NVLink copies"
                               : "assumed: the base's achieved fraction of raw PCIe; "
                                 "the base has no NVLink") +
        ") = " + g(p.d2d_bytes_per_s) + " B/s.";
  } else {
    // Peer copies over PCIe: the base's ratio of peer to host copies, when the base's d2d
    // was PCIe too; a base with NVLink says nothing about PCIe peers, so the host rate.
    const double ratio = bs.nvlink_bytes_per_s ? 1.0 : base.d2d_bytes_per_s / base.pcie_bytes_per_s;
    p.d2d_bytes_per_s = p.pcie_bytes_per_s * ratio;
    src["d2d_bytes_per_s"] = from + "no NVLink: peer copies over " + link(t) + " at " + g(ratio) +
                             " of the host copy rate (" +
                             (bs.nvlink_bytes_per_s ? "assumed equal: the base's d2d was NVLink"
                                                    : "the base's d2d / pcie") +
                             ") = " + g(p.d2d_bytes_per_s) + " B/s.";
  }

}

// Everything else: the host software, network or driver. Copied, with the base's source.
void copy_host_sources(const Profile& base, std::map<std::string, std::string>& src) {
  const std::set<std::string> derived = {
      "device",         "peak_flops_per_s",    "kind_efficiency",      "throughput",
      "measured",       "rebuild_flops_per_s", "quantize_bytes_per_s", "pcie_bytes_per_s",
      "d2d_bytes_per_s", "interference_kernel_slowdown", "interference_comm_slowdown"};
  const std::string copied =
      "copied unchanged from base profile " + base.name +
      " by possim profile derive: it describes the host software, network or "
      "driver, not the GPU. Base's source: ";
  for (const char* f : {"pcie_latency_s", "tcp_goodput", "per_message_s",
                        "server_apply_bytes_per_s", "per_iteration_s"})
    src[f] = copied + "(none given)";
  for (const auto& [k, v] : base.sources)
    if (!derived.count(k)) src[k] = copied + v;
}

// How derive_profile marks a derived profile's device: "<target> [derived ... BASE, measured on ...]".
const char* const kDerivedMark = " [derived by possim profile derive from profile ";

}  // namespace

std::string derived_from(const Profile& p) {
  const std::size_t at = p.device.find(kDerivedMark);
  if (at == std::string::npos) return "";
  const std::size_t from = at + std::string(kDerivedMark).size();
  return p.device.substr(from, p.device.find(", measured on ", from) - from);
}

Profile derive_profile(const Profile& base, const DeviceSheet& bs, const DeviceSheet& t,
                       const std::string& name) {
  if (base.peak_flops_per_s <= 0) throw std::invalid_argument("derive_profile: base has no peak");
  // Every field, including any this file does not know, starts as the base's.
  Profile p = base;
  p.name = name;
  p.path = "derived:" + name;
  // The base's fit left its network and software parameters uncertain, but the derived
  // compute is a roofline scaling with no error bar of its own: an interval from the copied
  // parameters alone would claim a confidence the derivation does not have.
  p.fit_covariance = {};
  p.device = t.device + kDerivedMark + base.name + ", measured on " + bs.device + "]";

  const double Pb = bs.fp32_flops_per_s.value, Pn = t.fp32_flops_per_s.value;
  const double Bb = bs.memory_bytes_per_s.value, Bn = t.memory_bytes_per_s.value;
  p.peak_flops_per_s = Pn;
  const std::string from = "possim profile derive from profile " + base.name +
                           " (base device sheet " + shown(bs.path) + ", target device sheet " +
                           shown(t.path) + "): ";

  std::map<std::string, std::string> src;
  src["device"] = from + t.device + ". Memory " + g(t.memory_gb.value) + " GB (" +
                  cite(t.memory_gb) +
                  "); possim does not use the memory size (a batch that "
                  "does not fit is not detected)." +
                  (t.board_note.empty() ? "" : " Board: " + t.board_note);
  src["peak_flops_per_s"] =
      from + "fp32 peak of the target, " + g(Pn) + " FLOP/s: " + cite(t.fp32_flops_per_s) + ".";
  // The tensor-core peaks, as published: a run at a precision of that math uses them, with
  // the fp32 kind efficiencies until a measurement at that precision is fitted.
  p.peak_flops_by_math.clear();
  p.kind_efficiency_by_math.clear();
  std::string peaks;
  const std::pair<const char*, const std::optional<DeviceFigure>*> maths[] = {
      {"tf32", &t.tf32_flops_per_s}, {"fp16", &t.fp16_flops_per_s}, {"bf16", &t.bf16_flops_per_s}};
  for (const auto& [math, fig] : maths) {
    if (!*fig) {
      peaks += std::string(peaks.empty() ? "" : "; ") + "no " + math + " tensor-core math on this device";
      continue;
    }
    p.peak_flops_by_math[math] = (*fig)->value;
    peaks += std::string(peaks.empty() ? "" : "; ") + math + " " + g((*fig)->value) + " FLOP/s: " + cite(**fig);
  }
  if (!p.peak_flops_by_math.empty())
    src["peak_flops_per_s_by_precision"] =
        from + "dense tensor-core peaks of the target, as published (" + peaks +
        "). conv and fc layers of a run at that precision use them with their fp32 kind efficiency: "
        "a roofline guess, not a measurement.";

  src["kind_efficiency"] = derive_kind_efficiencies(p, base, bs, t, from);

  p.throughput.clear();
  p.measured.clear();
  std::string dropped;
  for (const auto& tp : base.throughput)
    dropped += (dropped.empty() ? "" : ", ") + tp.model + " batch " + std::to_string(tp.batch) +
               " at " + g(tp.images_per_s) + " images/s";
  src["throughput"] =
      from + "empty: the base's points (" + (dropped.empty() ? "none" : dropped) +
      ") were measured on " + bs.device +
      " and are not carried over. Layer times on "
      "this GPU come from the FLOP model alone (Profile::layer_times rule 3): batch x "
      "layer FLOPs / (peak_flops_per_s x kind efficiency), plus per_iteration_s.";
  src["measured"] = from + "empty: the base's per-layer timings (" +
                    std::to_string(base.measured.size()) +
                    " sets) belong to the base GPU and are not carried over.";

  // The rebuild GEMM's inner dimension is (P1-1)K, far deeper than an FC layer's batch:
  // compute-bound, so it keeps its fraction of the fp32 peak.
  p.rebuild_flops_per_s = base.rebuild_flops_per_s * Pn / Pb;
  src["rebuild_flops_per_s"] = from + "the SF rebuild is one deep fp32 SGEMM (inner dimension "
                               "(P1-1)K), compute-bound: scaled with the fp32 peak, base " +
                               g(base.rebuild_flops_per_s) + " x " + g(Pn / Pb) + " = " +
                               g(p.rebuild_flops_per_s) + " FLOP/s.";

  p.quantize_bytes_per_s = base.quantize_bytes_per_s * Bn / Bb;
  src["quantize_bytes_per_s"] = from +
                                "1-bit quantization is a streaming pass: scaled with memory "
                                "bandwidth, base " +
                                g(base.quantize_bytes_per_s) + " x " + g(Bn) + " / " + g(Bb) +
                                " = " + g(p.quantize_bytes_per_s) +
                                " B/s (bandwidth: " + cite(t.memory_bytes_per_s) + ").";

  derive_links(p, base, bs, t, from, src);
  copy_host_sources(base, src);
  // Interference is the target GPU's; where its sheet has no figure, none (the base's
  // would describe another GPU).
  p.interference_kernel_slowdown = p.interference_comm_slowdown = 1;
  if (t.interference_kernel_slowdown) {
    p.interference_kernel_slowdown = t.interference_kernel_slowdown->value;
    src["interference_kernel_slowdown"] =
        from + "a GPU kernel's time while a communication kernel is in flight on its GPU, x" +
        g(p.interference_kernel_slowdown) + ". " + cite(*t.interference_kernel_slowdown) + ".";
  }
  if (t.interference_comm_slowdown) {
    p.interference_comm_slowdown = t.interference_comm_slowdown->value;
    src["interference_comm_slowdown"] =
        from + "a GPU-to-GPU transfer's time while a kernel runs on its GPU, x" +
        g(p.interference_comm_slowdown) + ". " + cite(*t.interference_comm_slowdown) + ".";
  }
  // RDMA is the fabric's, not the GPU's: a base that has no figure (the 2016 cluster ran
  // TCP) gives what InfiniBand's framing leaves, for scenarios with "transport": "rdma".
  if (!(base.rdma_efficiency > 0)) {
    const double header_bytes = 8 + 12 + 4 + 2;  // LRH, BTH, ICRC, VCRC
    p.rdma_efficiency = 4096 / (4096 + header_bytes);
    src["rdma_efficiency"] =
        from + "the base has no RDMA figure. InfiniBand reliable-connection RDMA with a 4096-byte MTU "
        "carries 4096 payload bytes per packet under 26 bytes of headers (LRH 8, BTH 12, ICRC 4, VCRC 2; "
        "InfiniBand Architecture Specification vol. 1, ch. 5 and 9; the 64b/66b line code is already out "
        "of the quoted data rate) = " + g(p.rdma_efficiency) +
        ". Framing alone, an upper bound: a measured bus bandwidth (NCCL-tests all_reduce_perf busbw "
        "between two nodes) fitted with calibrate replaces it.";
  }
  p.sources = src;
  return p;
}

}  // namespace possim
