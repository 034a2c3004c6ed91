// The live engine's section of a scenario ("live": {...}): how it runs the scenario on
// this machine. Declared with the engine (live/live_registration.cpp), so the scenario
// reader checks it where it stands.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "model/input/json_check.hpp"
#include "model/input/scenario.hpp"

namespace possim::live {

constexpr const char* kSettingsSection = "live";

struct LiveSettings {
  // Network bytes and NIC rates divided by this (model/plan/network_scale.hpp), where the
  // machine cannot carry the scenario's rate: transfer times stay those of the scenario.
  double network_scale = 1;
  bool netns = true;  // shaped network namespaces; false: loopback, unshaped
  // The switch buffer in time: how long a packet may queue at a shaped link (tc tbf
  // latency), live/launch_local.hpp.
  double queue_ms = 50;
  // "arithmetic": the model is evaluated for real on the CPU and flows carry its values
  // (live/arithmetic/; fc, relu and softmax layers); "emulated": each step occupies its
  // profiled time and flows carry zeros.
  // "kernels": each layer's pass runs its real kernels, through the kernel backend (kernels/)
  // named by kernel_backend ("gpu": cuDNN/cuBLAS; "cpu": Eigen), live/kernel_stream.hpp.
  bool arithmetic = false;
  bool kernels = false;
  std::string kernel_backend = "gpu";
  double learning_rate = 0.05;  // arithmetic: plain SGD's step
  // Everything the run emulates k times slower, measured times divided by k, so that node
  // processes sharing few cores each get a core's worth of CPU per undilated second
  // (model/plan/time_dilation.hpp). 0: automatic, nodes / this machine's cores (at least 1).
  double time_dilation = 1;
};

// The section read; InputError (through r) naming live.FIELD for what it cannot be.
LiveSettings read_live_settings(const nlohmann::json& section, const json_check::Reader& r);
// The scenario's settings: its section (checked when it was read), or the defaults.
LiveSettings live_settings(const Scenario& s);

}  // namespace possim::live
