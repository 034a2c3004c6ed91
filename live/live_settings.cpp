#include "live/live_settings.hpp"

namespace possim::live {

namespace {

using json = nlohmann::json;

std::string field(const char* name) { return std::string(kSettingsSection) + "." + name; }

}  // namespace

LiveSettings read_live_settings(const json& v, const json_check::Reader& r) {
  const json_check::Names known = {"network_scale", "links", "queue_ms", "compute", "kernel_backend", "learning_rate", "time_dilation"};
  r.object(v, kSettingsSection, "an object with fields " + json_check::list(known));
  r.only_known(v, kSettingsSection, known);
  LiveSettings s;
  if (v.contains("queue_ms"))
    s.queue_ms = r.number(v["queue_ms"], field("queue_ms"), 0.1, 1000, "milliseconds in [0.1, 1000]");
  if (v.contains("network_scale"))
    s.network_scale = r.number(v["network_scale"], field("network_scale"), 1, 1e6,
                               "a factor in [1, 1e6] dividing network bytes and NIC rates");
  if (v.contains("time_dilation")) {
    const json& d = v["time_dilation"];
    if (d.is_string())
      s.time_dilation = r.choice(d, field("time_dilation"), {"auto"}) == "auto" ? 0 : 1;
    else
      s.time_dilation = r.number(d, field("time_dilation"), 1, 1000,
                                 "\"auto\" or a factor in [1, 1000] slowing down what the run emulates");
  }
  if (v.contains("links")) s.netns = r.choice(v["links"], field("links"), {"netns", "loopback"}) == "netns";
  if (v.contains("compute")) {
    const std::string c = r.choice(v["compute"], field("compute"), {"emulated", "arithmetic", "kernels"});
    s.arithmetic = c == "arithmetic";
    s.kernels = c == "kernels";
  }
  if (v.contains("kernel_backend")) {
    s.kernel_backend = r.choice(v["kernel_backend"], field("kernel_backend"), {"gpu", "cpu"});
    if (!s.kernels)
      r.fail(field("kernel_backend"), "is only read with \"compute\": \"kernels\"",
             "\"compute\": \"kernels\", or no kernel_backend");
  }
  if (s.kernels && s.time_dilation != 1)
    r.fail(field("time_dilation"), "cannot dilate real kernels (they take the time they take)",
           "1 (no time_dilation) with \"compute\": \"kernels\"");
  if (v.contains("learning_rate"))
    s.learning_rate = r.number(v["learning_rate"], field("learning_rate"), 1e-9, 1e3, "a step size in [1e-9, 1e3]");
  return s;
}

LiveSettings live_settings(const Scenario& s) {
  const json* section = s.engine_section(kSettingsSection);
  return section ? read_live_settings(*section, json_check::Reader(s.path)) : LiveSettings{};
}

}  // namespace possim::live
