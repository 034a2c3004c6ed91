// The stragglers a scenario describes: per-worker compute slowdowns and the policy of
// dropping late workers from a step's aggregation. model/plan/stragglers.hpp draws the
// table a plan carries from it.
#pragma once
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

}  // namespace possim
