// Every resource a task can occupy, declared once: the steps that run on it, what a task's
// amount on it counts, the plan rate that turns the amount into seconds, the latency each
// use pays, its trace track, who owns one and the scope of the tasks on it, whether those
// tasks carry a payload, how network scaling and time dilation act on it, and which share
// of the time breakdown waiting for it counts as. The plan's checks, the uncontended task
// cost, scale_network, dilate_time, the time breakdown and the engines' trace tracks read
// this table; each engine binds the resources to its own machinery once (the analytic engine's
// slots, SimGrid's dispatch, the live node's emulated resources). A new resource is a row
// here, a binding in each engine, and their tests.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "model/plan/step.hpp"
#include "model/plan/time_share.hpp"

namespace possim {

struct Rates;

// What a task occupies while it runs. The unit of its amount follows from the resource,
// so an engine needs no knowledge of which strategy step a task is.
enum class Resource : std::uint8_t {
  gpu,         // a GPU's compute stream: duration_s
  pcie_d2h,    // the leader GPU's PCIe link, device to host: bytes
  pcie_h2d,    // host to device: bytes
  intra_node,  // the GPU-to-GPU path inside a node: bytes
  network,     // NICs: the flows of `pattern`
  server_cpu,  // a shard's CPU: bytes of each worker's update at the apply rate, + duration_s
  none,        // occupies nothing (a barrier)
  host_cpu,    // a worker node's CPU applying an update on the host (a CPU-side optimizer): bytes at the apply rate
};
constexpr std::size_t kResources = 8;

// Who runs an instance: every worker, every slice of the task's tensor on its shard, or
// the cluster once (a barrier: done when its deps are done on every worker).
enum class Scope : std::uint8_t { worker, shard, cluster };

// What a task's amount on a resource is.
enum class Amount : std::uint8_t {
  seconds,  // duration_s, as written (GPU kernels, a barrier's round)
  bytes,    // bytes at the resource's rate, plus its latency when it moves any
  flows,    // the flows of the task's pattern (network: contention is the engine's)
  updates,  // each worker's update of the task's tensor slice at the rate, plus duration_s
};

struct ResourceInfo {
  Resource id;
  const char* name;  // to_string(): "pcie_d2h"
  Amount amount;
  // The plan's rate (bytes/s) and per-use latency (s) for this resource; null where the
  // amount is seconds, or where the rate is the plan's own (the NIC: SyncPlan::nic_bytes_per_s()).
  double Rates::*rate;
  double Rates::*latency;
  // Its trace track, after "worker W " ("GPU", "PCIe d2h"); the network's tracks are its
  // NICs' ("node N NIC tx"), named by the engine that models them.
  const char* track;
  Scope scope;            // of the tasks on it
  bool carries;           // its tasks move a payload (copies and flows)
  bool network_scaled;    // scale_network divides its bytes and its rate
  bool dilated;           // dilate_time divides its rate, multiplies its latency and seconds
  // What the representative GPU's wait for a task on it counts as in the time breakdown
  // (model/run/breakdown.hpp). On the GPU itself that is another GPU's kernel: a peer it
  // waits for (its own kernels count by their step).
  TimeShare waited;
  // Its tasks' time is shared, in Rates::copy_host_share, with the stack's per-byte host
  // work on the same bytes (exposed host copy): copies between GPU and host.
  bool host_work;
  std::uint32_t steps;  // the steps that run on it (bit i: Step i); the first row holding a step is its default
};

constexpr std::uint32_t step_bit(Step s) { return std::uint32_t(1) << unsigned(s); }
static_assert(kSteps <= 32, "ResourceInfo::steps holds a bit per step");

const std::array<ResourceInfo, kResources>& resources();
const ResourceInfo& info(Resource r);
const char* to_string(Resource r);
// Whether `s` may run on `r`; the resource a step runs on when a plan does not say.
bool runs_on(Resource r, Step s);
Resource resource_of(Step s);

}  // namespace possim
