// Two FC layers of 1024 x 2048 on the flat profile (support/fixtures.hpp) at 100 Gbit/s:
// the hand-worked case of the all-reduce mechanisms' tests (buckets, launch cost,
// interference). Per layer B = 8 MiB of fp32 gradient; at batch 256, 3.2 ms of forward and
// backward; a ring round costs the link latency plus the per-message cost.
#pragma once
#include "support/fixtures.hpp"

namespace possim::test::two_fc {

inline Network net() {
  Network n;
  n.name = "two_fc";
  n.input = Shape{2048, 1, 1};
  n.layers.push_back(fc_layer("fc1", 1024, 2048));
  n.layers.push_back(fc_layer("fc2", 1024, 2048));
  n.layers[1].in = Shape{1024, 1, 1};
  return n;
}

constexpr double kBytes = 1024.0 * 2048 * 4;
constexpr double kNic = 100e9 / 8 * 0.9;                       // the flat profile's goodput at 100 Gbit/s
constexpr int kBatch = 256;
constexpr double kLayer = kBatch * 6.0 * 1024 * 2048 / 1e12;  // forward + backward of one layer
constexpr double kStep = 50e-6 + 20e-6;                        // latency + per-message cost per ring round

}  // namespace possim::test::two_fc
