// The shares an iteration's time is broken into (model/run/breakdown.hpp): what the
// representative GPU computes, and what it waits for when it does not. Declared with the
// plan because the resource table (model/plan/resource.hpp) says which share waiting on
// each resource counts as.
#pragma once
#include <cstddef>
#include <cstdint>

namespace possim {

enum class TimeShare : std::uint8_t {
  compute,
  network,
  pcie,
  host_copy,
  server_apply,
  sf_rebuild,
  quantization,
  barrier_wait,
};
constexpr std::size_t kTimeShares = 8;

// Column names (seconds per iteration) and short table headers, in TimeShare order.
const char* column_name(TimeShare s);   // "compute_s", "exposed_network_s", ...
const char* short_name(TimeShare s);    // "compute", "net", ...
const char* share_meaning(TimeShare s); // "GPU forward and backward passes", ...

}  // namespace possim
