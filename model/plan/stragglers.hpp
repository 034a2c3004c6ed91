// Per-worker compute slowdowns for each iteration, drawn once from the scenario's seed so
// that a run is reproducible bit for bit, and the paper's policy of dropping stragglers
// from a step's aggregation.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace possim {

struct StragglerModel {
  // none: every worker computes at profile speed.
  // lognormal: each worker's compute time in each iteration is scaled by
  //            exp(N(0, sigma^2)), drawn from the scenario's seed.
  // fixed: per-worker slowdown factors (>= 1), given explicitly.
  std::string kind = "none";
  double sigma = 0;
  std::vector<double> slowdown;
  // Drop a worker from a step's aggregation when it is later than this factor
  // times the median worker (0: never drop; the paper's policy is to drop).
  double drop_after = 0;
};

struct StragglerTable {
  std::vector<std::vector<double>> slowdown;  // [iteration][worker], >= 0, 1 = profile speed
  std::vector<std::vector<char>> dropped;     // [iteration][worker]
  int active(int iteration) const;            // workers not dropped
};

StragglerTable make_stragglers(const StragglerModel& m, int iterations, int workers, std::uint64_t seed);

}  // namespace possim
