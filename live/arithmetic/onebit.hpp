// 1-bit quantization with error feedback (CNTK's 1-bit SGD): each value v of a column,
// with the residual r left from the last step added, is sent as one bit (v + r >= 0), and
// the column as two reconstruction values, the means of its non-negative and of its
// negative entries; what the reconstruction misses becomes the next step's residual.
//
// A quantized slice of a layer's flattened parameters is a sequence of pieces, one per
// column it meets (columns are `column` values long, counted from the start of the layer,
// `offset` being where the slice begins): for each piece two floats then its bits,
// padded to a byte.
#pragma once
#include <cstddef>
#include <vector>

namespace possim::live::arith {

// Quantizes values[0, n) + residual[0, n); updates the residual.
std::vector<unsigned char> quantize(const float* values, float* residual, std::size_t n, std::size_t offset,
                                    std::size_t column);
// out[i] += scale * (decoded value i), i < n. Throws std::runtime_error if `size` is not
// what n values at that offset and column length take.
void dequantize_add(const unsigned char* data, std::size_t size, float* out, std::size_t n, std::size_t offset,
                    std::size_t column, float scale);
std::size_t quantized_bytes(std::size_t n, std::size_t offset, std::size_t column);

}  // namespace possim::live::arith
