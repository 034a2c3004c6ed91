// A compute and communication profile: how fast one GPU node computes each layer and
// moves bytes. Every number carries where it came from (a measurement, a paper, a fit).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace possim {

// A measured single-GPU throughput, used to scale the per-layer FLOP model.
struct ThroughputPoint {
  std::string model;
  int batch = 0;
  double images_per_s = 0;
  std::string source;
};

// Per-layer seconds measured for one model at one batch (written by the calibrator).
struct LayerTiming {
  std::string layer;
  double forward_s = 0;
  double backward_s = 0;
};
struct MeasuredModel {
  std::string model;
  int batch = 0;
  std::vector<LayerTiming> layers;
  std::string source;
};

// Forward/backward seconds of one layer for a whole batch on one GPU.
struct LayerTime {
  double forward_s = 0;
  double backward_s = 0;
};

struct Profile {
  std::string name;
  std::string device;
  std::string path;  // file it was read from, or "builtin:NAME"

  // GPU compute: achieved FLOP/s = peak x efficiency of the layer's kind.
  double peak_flops_per_s = 0;
  std::map<LayerKind, double> kind_efficiency;
  std::vector<ThroughputPoint> throughput;
  std::vector<MeasuredModel> measured;

  // Data movement.
  double pcie_bytes_per_s = 0;      // host<->device copy rate, each direction
  double pcie_latency_s = 0;        // fixed cost of one copy
  double d2d_bytes_per_s = 0;       // GPU<->GPU copies inside a node (leader gather)
  double tcp_goodput = 1.0;         // fraction of NIC line rate that TCP delivers
  double per_message_s = 0;         // software cost of one message (one KV pair, one SF batch)
  double server_apply_bytes_per_s = 0;  // server CPU: bytes of one update applied per second
  double rebuild_flops_per_s = 0;   // GPU GEMM rate for rebuilding gradients from factors
  double quantize_bytes_per_s = 0;  // GPU pass for 1-bit quantization with residual
  double per_iteration_s = 0;       // fixed framework cost per iteration (data layer, solver)

  std::map<std::string, std::string> sources;  // field name -> where its number came from

  // Forward/backward seconds per layer of `net` at `batch` images:
  // 1. measured per-layer timings for this model and batch, if present;
  // 2. else the FLOP model (peak x kind efficiency), rescaled so that the whole
  //    iteration matches a measured throughput for this model (nearest batch), if any;
  // 3. else the FLOP model alone.
  std::vector<LayerTime> layer_times(const Network& net, int batch) const;
  // Which of the three rules above layer_times used, for `explain`.
  std::string compute_source(const Network& net, int batch) const;
};

// Load a profile: a path to a JSON file, or the name of a shipped profile
// (looked up in the profiles/ folder). Throws InputError naming file and field.
Profile load_profile(const std::string& name_or_path, const std::string& base_dir = ".");
Profile parse_profile(const std::string& json_text, const std::string& where);

}  // namespace possim
