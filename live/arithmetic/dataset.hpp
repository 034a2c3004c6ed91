// A synthetic classification data set, deterministic in (seed, sample index), so that any
// process can draw its own samples and a single process can draw them all: sample i has
// class i's label (a hash of i) and features = the class's centre + unit Gaussian noise.
// Worker w's batch of iteration t is samples [(t*W + w)*B, +B): the W batches of an
// iteration together are the global batch a single process would take.
#pragma once
#include <cstdint>
#include <vector>

#include "live/arithmetic/tensor.hpp"

namespace possim::live::arith {

struct Batch {
  Matrix x;                 // samples x features
  std::vector<int> labels;  // class of each sample
};

Batch make_batch(std::uint64_t seed, std::int64_t first, int count, int features, int classes);

// Counter-based random numbers: the same value for the same (seed, stream, index) on any
// machine (no std:: distributions: their algorithms are the library's choice).
double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);
double normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index);

}  // namespace possim::live::arith
