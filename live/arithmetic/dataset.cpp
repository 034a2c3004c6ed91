#include "live/arithmetic/dataset.hpp"

#include <cmath>

namespace possim::live::arith {

namespace {
std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
constexpr std::uint64_t kLabels = 1, kCentres = 2, kNoise = 3;
}  // namespace

double uniform01(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t h = splitmix(splitmix(splitmix(seed) ^ stream) ^ index);
  return double(h >> 11) * 0x1.0p-53;
}

// Box-Muller on two uniforms of the same (seed, stream) at 2i and 2i+1.
double normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const double u1 = 1.0 - uniform01(seed, stream, 2 * index);  // (0, 1]
  const double u2 = uniform01(seed, stream, 2 * index + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

Batch make_batch(std::uint64_t seed, std::int64_t first, int count, int features, int classes) {
  Batch b;
  b.x.resize(count, features);
  b.labels.resize(std::size_t(count));
  for (int k = 0; k < count; ++k) {
    const std::uint64_t i = std::uint64_t(first + k);
    const int c = int(uniform01(seed, kLabels, i) * classes) % classes;
    b.labels[std::size_t(k)] = c;
    for (int f = 0; f < features; ++f)
      b.x(k, f) = float(normal(seed, kCentres, std::uint64_t(c) * std::uint64_t(features) + std::uint64_t(f)) +
                        normal(seed, kNoise, i * std::uint64_t(features) + std::uint64_t(f)));
  }
  return b;
}

}  // namespace possim::live::arith
