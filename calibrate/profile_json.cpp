#include "calibrate/profile_json.hpp"

#include <filesystem>

#include "model/run/output_file.hpp"
#include "model/run/result_io.hpp"

namespace possim::calibrate {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

ojson profile_to_json(const Profile& p) {
  ojson eff = ojson::object();
  for (const auto& [k, v] : p.kind_efficiency) eff[to_string(k)] = v;
  ojson tp = ojson::array();
  for (const auto& t : p.throughput) {
    ojson e{{"model", t.model}, {"batch", t.batch}, {"images_per_s", t.images_per_s}};
    if (!t.framework.empty()) e["framework"] = t.framework;
    if (t.precision != Precision::fp32) e["precision"] = to_string(t.precision);
    e["source"] = t.source;
    tp.push_back(e);
  }
  ojson measured = ojson::array();
  for (const auto& m : p.measured) {
    ojson layers = ojson::array();
    for (const auto& l : m.layers)
      layers.push_back(
          ojson{{"layer", l.layer}, {"forward_s", l.forward_s}, {"backward_s", l.backward_s}});
    ojson e{{"model", m.model}, {"batch", m.batch}, {"source", m.source}};
    if (m.precision != Precision::fp32) e["precision"] = to_string(m.precision);
    e["layers"] = layers;
    measured.push_back(e);
  }
  ojson sources = ojson::object();
  for (const auto& [k, v] : p.sources) sources[k] = v;
  ojson stacks = ojson::object();
  for (const auto& [name, st] : p.stacks) {
    ojson e = ojson::object();
    if (!st.description.empty()) e["description"] = st.description;
    if (!st.framework.empty()) e["framework"] = st.framework;
    if (st.sync_after_backward) e["sync_after_backward"] = true;
    for (const auto& n : stack_parameter_names())
      if (st.params.count(n)) e[n] = st.params.at(n);
    ojson src = ojson::object();
    for (const auto& [k, v] : st.sources) src[k] = v;
    if (!src.empty()) e["sources"] = src;
    stacks[name] = e;
  }
  ojson defaults = ojson::object();
  for (const auto& [k, v] : p.default_stacks) defaults[k] = v;
  ojson out{{"format", "possim-profile-1"},
            {"name", p.name},
            {"device", p.device},
            {"peak_flops_per_s", p.peak_flops_per_s},
            {"kind_efficiency", eff}};
  // The tensor-core peaks only where the device has them (older profiles stay as they were).
  if (!p.peak_flops_by_math.empty()) {
    ojson peaks = ojson::object();
    for (const char* math : {"tf32", "fp16", "bf16"})
      if (p.peak_flops_by_math.count(math)) peaks[math] = p.peak_flops_by_math.at(math);
    out["peak_flops_per_s_by_precision"] = peaks;
  }
  if (!p.kind_efficiency_by_math.empty()) {
    ojson by = ojson::object();
    for (const auto& [math, kinds] : p.kind_efficiency_by_math) {
      ojson e = ojson::object();
      for (const auto& [k, v] : kinds) e[to_string(k)] = v;
      by[math] = e;
    }
    out["kind_efficiency_by_precision"] = by;
  }
  const ojson rest{{"throughput", tp},
               {"measured", measured},
               {"pcie_bytes_per_s", p.pcie_bytes_per_s},
               {"pcie_latency_s", p.pcie_latency_s},
               {"d2d_bytes_per_s", p.d2d_bytes_per_s},
               {"tcp_goodput", p.tcp_goodput},
               {"per_message_s", p.per_message_s},
               {"server_apply_bytes_per_s", p.server_apply_bytes_per_s},
               {"rebuild_flops_per_s", p.rebuild_flops_per_s},
               {"quantize_bytes_per_s", p.quantize_bytes_per_s},
               {"per_iteration_s", p.per_iteration_s},
               {"server_per_peer_s", p.server_per_peer_s},
               {"runtime_copy_bytes_per_s", p.runtime_copy_bytes_per_s},
               {"client_pass_bytes_per_s", p.client_pass_bytes_per_s},
               {"server_update_bytes_per_s", p.server_update_bytes_per_s},
               {"step_sync_s", p.step_sync_s},
               {"stacks", stacks},
               {"default_stacks", defaults},
               {"sources", sources}};
  for (const auto& [k, v] : rest.items()) out[k] = v;
  // Written where set, so that profiles without it stay as they were.
  if (p.collective_launch_s > 0) out["collective_launch_s"] = p.collective_launch_s;
  if (p.interference_kernel_slowdown != 1) out["interference_kernel_slowdown"] = p.interference_kernel_slowdown;
  if (p.interference_comm_slowdown != 1) out["interference_comm_slowdown"] = p.interference_comm_slowdown;
  if (p.tcp_host_bytes_per_s > 0) out["tcp_host_bytes_per_s"] = p.tcp_host_bytes_per_s;
  if (p.rdma_efficiency > 0) out["rdma_efficiency"] = p.rdma_efficiency;
  if (p.optimizer_bytes_per_s > 0) out["optimizer_bytes_per_s"] = p.optimizer_bytes_per_s;
  if (!p.fit_covariance.empty())
    out["fit_covariance"] = ojson{{"parameters", p.fit_covariance.parameters},
                                  {"log_covariance", p.fit_covariance.log_covariance},
                                  {"source", p.fit_covariance.source}};
  return out;
}

std::string sidecar_path(const std::string& profile_path) {
  const std::string ext = ".json";
  if (profile_path.size() > ext.size() &&
      profile_path.compare(profile_path.size() - ext.size(), ext.size(), ext) == 0)
    return profile_path.substr(0, profile_path.size() - ext.size()) + ".calibration.json";
  return profile_path + ".calibration.json";
}

void write_profile_with_sidecar(const Profile& p, json sidecar, const std::string& path) {
  const std::string text = profile_to_json(p).dump(2) + "\n";
  parse_profile(text, path);  // throws InputError if possim would not load it
  sidecar["format"] = "possim-calibration-1";
  sidecar["profile"] = std::filesystem::path(path).filename().string();
  write_file_atomic(sidecar_path(path), sidecar.dump(2) + "\n");
  write_file_atomic(path, text);
}

}  // namespace possim::calibrate
