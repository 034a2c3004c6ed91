#include "live/arithmetic/onebit.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace possim::live::arith {

namespace {
// Calls f(begin, end) for each piece of [0, n) cut at the column boundaries.
template <class F>
void pieces(std::size_t n, std::size_t offset, std::size_t column, F f) {
  for (std::size_t i = 0; i < n;) {
    const std::size_t to_boundary = column - (offset + i) % column;
    const std::size_t end = std::min(n, i + to_boundary);
    f(i, end);
    i = end;
  }
}
}  // namespace

std::size_t quantized_bytes(std::size_t n, std::size_t offset, std::size_t column) {
  std::size_t bytes = 0;
  pieces(n, offset, column, [&](std::size_t b, std::size_t e) { bytes += 2 * sizeof(float) + (e - b + 7) / 8; });
  return bytes;
}

std::vector<unsigned char> quantize(const float* values, float* residual, std::size_t n, std::size_t offset,
                                    std::size_t column) {
  std::vector<unsigned char> out(quantized_bytes(n, offset, column), 0);
  unsigned char* p = out.data();
  pieces(n, offset, column, [&](std::size_t b, std::size_t e) {
    double pos = 0, neg = 0;
    std::size_t npos = 0, nneg = 0;
    for (std::size_t i = b; i < e; ++i) {
      const float v = values[i] + residual[i];
      if (v >= 0) pos += v, ++npos;
      else neg += v, ++nneg;
    }
    const float level[2] = {nneg ? float(neg / double(nneg)) : 0.0f, npos ? float(pos / double(npos)) : 0.0f};
    std::memcpy(p, &level[1], sizeof(float));
    std::memcpy(p + sizeof(float), &level[0], sizeof(float));
    unsigned char* bits = p + 2 * sizeof(float);
    for (std::size_t i = b; i < e; ++i) {
      const float v = values[i] + residual[i];
      const int bit = v >= 0 ? 1 : 0;
      if (bit) bits[(i - b) / 8] |= static_cast<unsigned char>(1u << ((i - b) % 8));
      residual[i] = v - level[bit];
    }
    p += 2 * sizeof(float) + (e - b + 7) / 8;
  });
  return out;
}

void dequantize_add(const unsigned char* data, std::size_t size, float* out, std::size_t n, std::size_t offset,
                    std::size_t column, float scale) {
  if (size != quantized_bytes(n, offset, column))
    throw std::runtime_error("a 1-bit slice of " + std::to_string(size) + " bytes where " +
                             std::to_string(quantized_bytes(n, offset, column)) + " were expected");
  const unsigned char* p = data;
  pieces(n, offset, column, [&](std::size_t b, std::size_t e) {
    float level[2];
    std::memcpy(&level[1], p, sizeof(float));
    std::memcpy(&level[0], p + sizeof(float), sizeof(float));
    const unsigned char* bits = p + 2 * sizeof(float);
    for (std::size_t i = b; i < e; ++i) out[i] += scale * level[(bits[(i - b) / 8] >> ((i - b) % 8)) & 1];
    p += 2 * sizeof(float) + (e - b + 7) / 8;
  });
}

}  // namespace possim::live::arith
