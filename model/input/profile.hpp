// A compute and communication profile: how fast one GPU node computes each layer and
// moves bytes. Every number carries where it came from (a measurement, a paper, a fit).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "model/input/numerics.hpp"
#include "model/workload/network.hpp"

namespace possim {

// A measured single-GPU throughput, used to scale the per-layer FLOP model.
struct ThroughputPoint {
  std::string model;
  int batch = 0;
  double images_per_s = 0;
  std::string source;
  std::string framework;  // the software that measured it ("caffe", "tensorflow"); "" any
  Precision precision = Precision::fp32;  // how it trained: only runs at this precision use it
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
  Precision precision = Precision::fp32;  // the kernels' precision: only runs at it use them
};

// Forward/backward seconds of one layer for a whole batch on one GPU.
struct LayerTime {
  double forward_s = 0;
  double backward_s = 0;
};

// The software that runs on a node -- a framework and its communication runtime -- as
// opposed to the node's physics (GPU, PCIe, NIC, TCP). Caffe+PS's servers, Poseidon's
// servers, stock TensorFlow's runtime and CNTK's 1-bit path are each a stack with their
// own costs, fitted only on their own measurements. Each entry of `params` overrides the
// profile's top-level field of the same name (see stack_parameter_names()) for the
// strategies that run on this stack; the rest is inherited.
struct SoftwareStack {
  std::string name;
  std::string description;
  std::string framework;  // whose single-GPU throughput points time the layers ("" any)
  std::map<std::string, double> params;
  // The stack's runtime starts synchronizing only after the whole backward pass (no
  // wait-free backpropagation), e.g. CNTK's 1-bit SGD: strategies that overlap by default
  // (onebit) follow it; those defined by their overlap (ps, wfbp, poseidon) do not.
  bool sync_after_backward = false;
  std::map<std::string, std::string> sources;  // parameter -> mechanism and where it came from
};

// The top-level fields a stack may override: software costs, never the node's physics.
const std::vector<std::string>& stack_parameter_names();
// The parameters possim calibrate fit may free: the node's physics (tcp_goodput,
// tcp_host_bytes_per_s, pcie_bytes_per_s, compute_scale: a factor on the compute speed;
// tensor_core_scale, tf32_scale, memory_bound_scale: on the tensor-core peaks, the TF32 peak,
// the memory-bound kinds) and
// the software parameters, top-level ("per_message_s") or one stack's ("STACK.per_message_s").
const std::vector<std::string>& fit_parameter_names();
// Whether `name` is one a fit may free: a fit_parameter_names() entry, or "STACK.P" with P a
// software parameter (whether the profile has STACK is the caller's to check).
bool is_fit_parameter_name(const std::string& name);
// Whether a fit parameter is the node's physics, which no stack overrides.
bool is_physics_parameter(const std::string& name);

// What a least-squares fit (possim calibrate fit) left uncertain: the covariance of the
// natural logarithms of its fitted parameters (the fit works in log space, so a parameter's
// relative uncertainty), for the parameters the points determined. Engines ignore it; a run
// propagates it to each prediction (calibrate/uncertainty.hpp).
struct FitCovariance {
  std::vector<std::string> parameters;  // fit_parameter_names(), STACK. qualified or not
  std::vector<std::vector<double>> log_covariance;  // [i][j], symmetric, diagonal >= 0
  std::string source;                               // which fits, on which points
  bool empty() const { return parameters.empty(); }
  // A log-variance of 25 is a 1-sigma factor of e^5 = 148: beyond that the points did not
  // determine the parameter and no figure is meant (a fit leaves such a parameter out).
  static constexpr double kMaxLogVariance = 25;
};

struct Profile {
  std::string name;
  std::string device;
  std::string path;  // file it was read from, or "builtin:NAME"
  std::string sha256;  // of the JSON text it was parsed from; "" if built in code

  // GPU compute: achieved FLOP/s = peak x efficiency of the layer's kind, in fp32.
  double peak_flops_per_s = 0;
  std::map<LayerKind, double> kind_efficiency;
  // Tensor-core peaks by math ("tf32", "fp16", "bf16"): the GEMMs and convolutions of a run
  // at that precision use them. A precision whose math has no peak here cannot run.
  std::map<std::string, double> peak_flops_by_math;
  // Kind efficiencies at a math's peak, where measured or fitted; a kind left out keeps
  // its fp32 efficiency (a roofline guess: the run header says so).
  std::map<std::string, std::map<LayerKind, double>> kind_efficiency_by_math;
  std::vector<ThroughputPoint> throughput;
  std::vector<MeasuredModel> measured;

  // Data movement.
  double pcie_bytes_per_s = 0;      // host<->device copy rate, each direction
  double pcie_latency_s = 0;        // fixed cost of one copy
  double d2d_bytes_per_s = 0;       // GPU<->GPU copies inside a node (leader gather)
  // The network's transport (model/plan/transport.hpp). TCP: payload at line rate x
  // tcp_goodput (the wire's framing: Ethernet, IP and TCP headers per segment), capped by
  // what the host's kernel stack moves per direction, tcp_host_bytes_per_s (0: no cap; a
  // profile from before the cap has its whole fitted share in tcp_goodput). RDMA: line
  // rate x rdma_efficiency (0: the profile has no RDMA figure and cannot run one).
  double tcp_goodput = 1.0;
  double tcp_host_bytes_per_s = 0;
  double rdma_efficiency = 0;
  double per_message_s = 0;         // software cost of one message (one KV pair, one SF batch)
  double server_apply_bytes_per_s = 0;  // server CPU: bytes of one worker's update taken in per second
  // Server CPU: bytes per second of the optimizer's update of the stored parameters, run
  // once per step when every worker's update of a pair is in (Poseidon's servers count
  // updates and publish at N). 0: no separate step, each worker's update is applied whole.
  double server_update_bytes_per_s = 0;
  double rebuild_flops_per_s = 0;   // GPU GEMM rate for rebuilding gradients from factors
  double quantize_bytes_per_s = 0;  // GPU pass for 1-bit quantization with residual
  double per_iteration_s = 0;       // fixed framework cost per iteration (data layer, solver)
  // Server CPU per worker request, for each tensor slice a shard holds: receiving,
  // locating and acknowledging one worker's update, whatever its size. 0: none.
  double server_per_peer_s = 0;
  // Host copies that a framework's runtime makes of every byte it sends or receives
  // (staging, serialization into RPC buffers), in series with the PCIe copy. 0: none.
  double runtime_copy_bytes_per_s = 0;
  // A PS client that builds each shard's message by passing over a layer's whole gradient
  // (and scatters each shard's reply by passing over the whole parameter buffer): one pass
  // per shard, so its host work grows with the cluster while its bytes on the wire do not.
  // Bytes per second of one pass; 0: the client indexes its keys directly (no pass).
  double client_pass_bytes_per_s = 0;
  // A BSP step's synchronisation round in the stack's PS runtime, fixed seconds whatever
  // the bytes: each worker tells the servers its step is done (its clock), the servers'
  // barrier waits for every worker, and the release wakes the workers' solvers. Charged on
  // the step's barrier, after the last sync. 0: the round costs nothing beyond the sync.
  double step_sync_s = 0;
  // The stack's fixed cost of starting one collective (coordination and kernel launch),
  // seconds, paid once per collective per worker (Rates::collective_launch_s). 0: none.
  double collective_launch_s = 0;
  // Compute/communication interference on one GPU (Rates::interference_*): while a
  // communication kernel (a collective's, or the GPU-to-GPU path's) is in flight on a GPU,
  // its compute kernels run this many times slower; while a compute kernel runs, the
  // GPU-to-GPU path's transfers run interference_comm_slowdown times slower. 1: none.
  double interference_kernel_slowdown = 1;
  double interference_comm_slowdown = 1;
  // The GPU's memory rate for the optimizer step of a worker that updates its own parameters
  // (the all-reduce family, single): bytes read plus written per second, over
  // kOptimizerBytesPerParam bytes per parameter (PlanBuilder::local_update). 0: the step is
  // inside the layer times (every profile derived from titanx_maxwell: Caffe's solver update
  // was timed with its layers) and no separate task is planned.
  double optimizer_bytes_per_s = 0;

  // Software stacks (see SoftwareStack) and the stack each strategy runs on by default.
  std::map<std::string, SoftwareStack> stacks;
  std::map<std::string, std::string> default_stacks;  // strategy -> stack name
  std::string framework;  // set by with_stack: throughput points of this framework first
  bool sync_after_backward = false;  // set by with_stack (SoftwareStack::sync_after_backward)
  std::string stack;      // the stack applied, "" none
  Numerics numerics;      // set by with_numerics: the precision layer times and rebuilds use

  std::map<std::string, std::string> sources;  // field name -> where its number came from
  // Set by possim calibrate fit; dropped where a profile is derived or its compute replaced.
  FitCovariance fit_covariance;

  // Forward/backward seconds per layer of `net` at `batch` images:
  // 1. measured per-layer timings for this model and batch, if present;
  // 2. else the FLOP model (peak x kind efficiency), rescaled so that the whole
  //    iteration matches a measured throughput for this model (nearest batch), if any;
  // 3. else the FLOP model alone.
  std::vector<LayerTime> layer_times(const Network& net, int batch) const;
  // A kind's fp32 efficiency: kind_efficiency's, or the memory-bound default where it has none.
  double efficiency_of(LayerKind k) const;
  // Which of the three rules above layer_times used, for `explain`.
  std::string compute_source(const Network& net, int batch) const;

  // This profile computing at `n.precision` with gradients of `n.gradient`: layer times,
  // factor rebuilds and measured points follow it. Throws InputError naming the profile when
  // it has no peak for the precision's math.
  Profile with_numerics(const Numerics& n) const;
  // Peak FLOP/s of a precision's GEMM math (fp32: peak_flops_per_s); 0 when the profile has none.
  double peak_for(Precision p) const;
  // The sufficient-factor rebuild's GEMM rate at the applied precision: the fp32 rate
  // scaled by the ratio of the math's peak to fp32's (same kernel efficiency).
  double rebuild_flops_at_precision() const;
  // Whether any throughput point or per-layer timing was measured at precision `p`, or
  // the compute was fitted (calibrate fit) to points at it.
  bool measured_at(Precision p) const;
  // What calibrate fit fitted the compute to (compute_scale, tensor_core_scale), read from
  // their sources: one per fitted compute source, "" none.
  struct ComputeFit {
    std::string file;
    std::vector<std::string> precisions;
    int points = 0;
  };
  std::vector<ComputeFit> compute_fits() const;
  // "" when a point was measured at the applied precision; else one line saying that the
  // layer times at it are the FLOP model alone (a roofline guess), for a run's warning.
  std::string unmeasured_caveat() const;
  // Where the profile's numbers come from, in one line for a run's header: derived from
  // which profile, how many measured points (at the applied precision), which fitted.
  std::string provenance_line() const;

  // Stack `name`; throws InputError naming the profile and its stacks for an unknown one.
  const SoftwareStack& stack_named(const std::string& name) const;
  // This profile with stack `name` applied (its parameters and framework). Throws as
  // stack_named does.
  Profile with_stack(const std::string& name) const;
  // The stack a strategy runs on: `chosen` if not empty, else default_stacks, else none.
  std::string stack_for(const std::string& strategy, const std::string& chosen = "") const;
  // with_stack(stack_for(strategy, chosen)), or this profile when there is no stack.
  Profile for_strategy(const std::string& strategy, const std::string& chosen = "") const;
  // Value of a software parameter (a stack_parameter_names() entry) as resolved here.
  double parameter(const std::string& name) const;
  double* parameter_field(const std::string& name);
};

// Load a profile: a path to a JSON file, or the name of a shipped profile
// (looked up in the profiles/ folder). Throws InputError naming file and field.
Profile load_profile(const std::string& name_or_path, const std::string& base_dir = ".");
// The shipped profiles' names (profiles/NAME.json, not their .calibration records), sorted.
std::vector<std::string> shipped_profile_names();
Profile parse_profile(const std::string& json_text, const std::string& where);

}  // namespace possim
