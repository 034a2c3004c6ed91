// Per-worker compute slowdowns for each iteration, drawn once from the scenario's seed so
// that a run is reproducible bit for bit, and the paper's policy of dropping stragglers
// from a step's aggregation.
#pragma once
#include <cstdint>
#include <vector>

#include "model/scenario.hpp"

namespace possim {

struct StragglerTable {
  std::vector<std::vector<double>> slowdown;  // [iteration][worker], >= 0, 1 = profile speed
  std::vector<std::vector<char>> dropped;     // [iteration][worker]
  int active(int iteration) const;            // workers not dropped
};

StragglerTable make_stragglers(const StragglerModel& m, int iterations, int workers, std::uint64_t seed);

}  // namespace possim
