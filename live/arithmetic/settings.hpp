// What the live engine's "arithmetic" compute needs besides the plan: the network whose
// layers it evaluates for real (fp32, Eigen, on the CPU), the SGD step and the data.
#pragma once
#include <cstdint>

#include "model/workload/network.hpp"

namespace possim::live::arith {

struct Settings {
  const Network* net = nullptr;  // null: emulated compute (live/emulated.hpp)
  double learning_rate = 0.05;   // plain SGD: w -= lr * (mean gradient of the global batch)
  std::uint64_t seed = 1;        // initial weights and the synthetic data set
  bool enabled() const { return net != nullptr; }
};

}  // namespace possim::live::arith
