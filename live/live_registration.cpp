// The live engine as the registry knows it: it measures (one point at a time, the whole
// machine), reads the scenario's "live" section, and under mpirun meets its ranks at
// --coordinator.
#include <iostream>

#include "live/live_engine.hpp"
#include "live/live_settings.hpp"
#include "model/input/error.hpp"
#include "model/run/engine_registry.hpp"
#include "model/run/module_host.hpp"

namespace possim::live {

namespace {

void check_section(const nlohmann::json& section, const json_check::Reader& r) { read_live_settings(section, r); }

// HOST:PORT, or InputError.
MpiRank coordinator_address(const std::string& coordinator) {
  const auto colon = coordinator.rfind(':');
  const std::string port = colon == std::string::npos ? "" : coordinator.substr(colon + 1);
  if (colon == std::string::npos || colon == 0 || port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) < 1 || std::stoi(port) > 65535)
    throw InputError("--coordinator", "", "'" + coordinator.substr(0, 64) + "' is not HOST:PORT",
                     "an IPv4 address and a port in [1, 65535], e.g. 10.0.0.1:7000");
  MpiRank m;
  m.host = coordinator.substr(0, colon);
  m.port = std::stoi(port);
  return m;
}

// The kernel backends' math for a scenario's precision: AMP runs its GEMMs and convolutions
// in the 16-bit type, which is what the backends' bf16 kernels time. They have no fp16 path.
calibrate::Precision kernel_precision(Precision p) {
  switch (p) {
    case Precision::fp32: return calibrate::Precision::fp32;
    case Precision::tf32: return calibrate::Precision::tf32;
    case Precision::amp_bf16:
    case Precision::bf16: return calibrate::Precision::bf16;
    case Precision::amp_fp16:
    case Precision::fp16: break;
  }
  throw InputError("precision", to_string(p), "the kernel backends have no fp16 kernels",
                   "fp32, tf32, amp_bf16 or bf16 with \"compute\": \"kernels\" (or emulated compute)");
}

std::unique_ptr<Engine> make(const EngineRequest& q) {
  if (q.scenario == nullptr)
    throw InputError("--engine", "live is not available for this command",
                     engine_choices([](const EngineCapabilities& c) { return !c.measures; }));
  const Scenario& s = *q.scenario;
  const LiveSettings live = live_settings(s);
  LiveOptions o;
  o.network_scale = live.network_scale;
  o.time_dilation = live.time_dilation;
  o.launch.netns = live.netns;
  o.launch.queue_ms = live.queue_ms;
  if (live.arithmetic) {
    o.launch.arithmetic.net = &s.network;
    o.launch.arithmetic.learning_rate = live.learning_rate;
    o.launch.arithmetic.seed = s.seed;
  }
  if (live.kernels) {
    // The nodes, forked from this process, open the GPU backend: a process that cannot
    // open it restarts as one that can now, before any node exists.
    if (live.kernel_backend == "gpu") before_opening_module("the GPU kernel backend");
    o.launch.kernels.net = &s.network;
    o.launch.kernels.backend = live.kernel_backend;
    o.launch.kernels.precision = kernel_precision(s.numerics.precision);
  }
  o.launch.progress = [quiet = q.quiet](const std::string& line) {
    if (!quiet || line.rfind("warning", 0) == 0) std::cerr << "possim live: " << line << "\n";
  };
  const auto& rank = q.mpi_rank;
  if (rank && q.coordinator.empty())
    throw InputError("--coordinator", "", "a live run under mpirun needs the address where its ranks meet",
                     "--coordinator HOST:PORT (rank 0's address, a free port)");
  if (!q.coordinator.empty()) {
    MpiRank m = coordinator_address(q.coordinator);
    m.rank = rank ? rank->index : 0;
    m.size = rank ? rank->count : 1;
    o.mpi = m;
  }
  return std::make_unique<LiveEngine>(o);
}

}  // namespace

void register_live_engine() {
  EngineInfo e;
  e.name = "live";
  e.summary = "real processes and TCP";
  e.capabilities.measures = true;
  e.capabilities.per_link_stats = true;
  e.capabilities.meets_ranks = true;
  e.capabilities.max_local_nodes = LiveEngine::kMaxLocalNodes;
  e.settings_section = kSettingsSection;
  e.check_settings = check_section;
  e.make = make;
  register_engine(std::move(e));
}

}  // namespace possim::live
