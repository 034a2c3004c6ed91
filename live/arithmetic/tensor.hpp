// fp32 row-major matrices for the arithmetic compute (one row per sample).
#pragma once
#include <Eigen/Dense>

namespace possim::live::arith {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowVector = Eigen::Matrix<float, 1, Eigen::Dynamic>;

}  // namespace possim::live::arith
