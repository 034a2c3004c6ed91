// Capacity planning by search over an engine's predictions: the least NIC bandwidth that
// keeps a scaling efficiency, the most nodes that keep it at a bandwidth, and the cheapest
// cluster that reaches a throughput at given prices. Each search asks `Evaluate` for the
// points it needs (the caller runs them and may cache them) and assumes what holds for
// data-parallel training over a switch: efficiency does not fall as bandwidth grows, and
// does not rise as nodes are added; a search that sees otherwise says so in its answer.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "model/planning/binding.hpp"
#include "model/planning/prices.hpp"
#include "model/run/result.hpp"

namespace possim {

// One point: strategy at `nodes` nodes of `gbps` Gbit/s NICs.
using Evaluate = std::function<Result(int nodes, double gbps)>;

enum class Reach {
  reached,      // the answer is a point that reaches the target
  below_grid,   // even the smallest value searched reaches it (the answer is that value)
  unreachable,  // no value searched reaches it (the answer is the best one tried)
};
const char* to_string(Reach r);

struct Answer {
  Reach reach = Reach::unreachable;
  double gbps = 0;
  int nodes = 0;
  Result at;         // the answer point's prediction
  Binding binding;   // at the answer point
  int evaluations = 0;
  std::string note;  // a monotonicity violation seen, or ""
};

// Default grid, Gbit/s: the Ethernet speeds one can buy.
const std::vector<double>& default_bandwidth_grid();

// Least bandwidth with efficiency >= target: binary search over the grid for the first
// point that reaches it, then bisection by false position (on log bandwidth) between it
// and the grid point below, until the two ends are within `relative_tolerance` of each
// other or the upper end is within half a point (0.005) of the target; the answer is the upper end.
Answer min_bandwidth(const Evaluate& eval, int nodes, const std::vector<double>& grid, double target,
                     double relative_tolerance = 0.02);

// Most nodes (<= max_nodes) with efficiency >= target at `gbps`: doubling from 1, then
// bisection between the last count that held and the first that did not.
Answer max_nodes(const Evaluate& eval, double gbps, int max_nodes, double target);

// Fewest nodes (<= max_nodes) reaching `images_per_s` at `gbps`: doubling, then bisection.
// Doubling stops, unreachable, where it adds under 10% throughput (more nodes do not pay).
Answer min_nodes_for_throughput(const Evaluate& eval, double gbps, int max_nodes, double images_per_s);

}  // namespace possim
