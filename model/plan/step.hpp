// What a task is: the step a strategy writes it as, and what a flow carries. Engines
// execute a task by the resource it occupies; what the step means elsewhere (the time
// breakdown's share, the live engine's arithmetic and kernels, a trace's colour) is looked
// up here by the step, never by the task's display label.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "model/input/numerics.hpp"

namespace possim {

enum class Step : std::uint8_t {
  forward,         // a layer's forward pass on its GPUs
  backward,        // a layer's backward pass
  rebuild,         // SFB: every peer's gradient rebuilt from its sufficient factors (a GEMM)
  quantize,        // 1-bit SGD: the gradient quantized, its error kept for the next step
  copy_d2h,        // PCIe, GPU to host
  copy_h2d,        // PCIe, host to GPU
  gather,          // inside a node: the other GPUs' tensors to the leader
  scatter,         // inside a node: the leader's tensor to the other GPUs
  reduce_scatter,  // inside a node: a ring's reduce-scatter over its GPUs
  all_gather,      // inside a node: the matching all-gather
  push,            // to the parameter-server shards
  pull,            // from the shards
  broadcast,       // to every peer worker (SFB's factors)
  allreduce,       // a collective over every worker
  apply,           // a shard applies every worker's update of its slice
  factors_in,      // every peer's factors have landed (synchronization, nothing occupied)
  barrier,         // the step's barrier, with the stack's synchronization round
  optimizer,       // the workers' own update of every parameter after the step's sync (all-reduce)
};
constexpr std::size_t kSteps = 18;

// What a flow (or a copy) carries; its element type is a DType (model/input/numerics.hpp).
enum class Payload : std::uint8_t { none, gradient, parameters, factors, quantized };

// The step's name: what a plan's label says by default, and a timeline's category.
const char* to_string(Step s);
std::optional<Step> step_from_string(const std::string& name);
const char* to_string(Payload p);

// A layer's own pass (forward or backward), not part of its synchronization.
constexpr bool is_pass(Step s) { return s == Step::forward || s == Step::backward; }

// Catapult's reserved colour name a trace draws the step's slices in.
const char* trace_colour(Step s);

}  // namespace possim
