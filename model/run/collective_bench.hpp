// One collective alone, as NCCL-tests' all_reduce_perf measures it, predicted by an engine:
// the scenario's cluster, profile and transport, its model replaced by one tensor of the
// given bytes and nothing else on the GPU (no layer compute, no per-iteration framework
// cost, no optimizer step), so the steady-state iteration is the collective's time, its
// launch cost included. `possim collective` prints it as all_reduce_perf does.
#pragma once
#include <string>
#include <vector>

#include "model/input/scenario.hpp"
#include "model/run/engine.hpp"

namespace possim {

// The strategies that are one collective per tensor (the all-reduce family).
const std::vector<std::string>& collective_strategies();

// `s` as the microbenchmark: one tensor of `bytes` (whole gradient values of the scenario's
// gradient dtype: `bytes` must be a multiple of its size), one sample per GPU, the given
// strategy, nodes and NIC rate. Throws InputError for a strategy that is not a collective.
Scenario collective_scenario(const Scenario& s, const std::string& strategy, int nodes, double nic_gbps,
                             double bytes);

// Seconds one all-reduce of `bytes` takes there, as `engine` predicts it.
double collective_time_s(const Scenario& s, const std::string& strategy, int nodes, double nic_gbps, double bytes,
                         const Engine& engine);

}  // namespace possim
