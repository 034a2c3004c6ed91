// Per-worker compute slowdowns for each iteration, drawn once from the scenario's seed so
// that a run is reproducible bit for bit, and who the paper's policy drops from a step's
// aggregation: the table a plan carries, made from the scenario's StragglerModel.
#pragma once
#include <cstdint>
#include <vector>

#include "model/input/straggler_model.hpp"

namespace possim {

struct StragglerTable {
  std::vector<std::vector<double>> slowdown;  // [iteration][worker], >= 0, 1 = profile speed
  std::vector<std::vector<char>> dropped;     // [iteration][worker]
  int active(int iteration) const;            // workers not dropped
};

StragglerTable make_stragglers(const StragglerModel& m, int iterations, int workers, std::uint64_t seed);

}  // namespace possim
