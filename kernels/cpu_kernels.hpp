// The CPU backend's kernels, fp32, NCHW, on plain arrays: convolution as im2col + GEMM
// (Eigen), FC GEMMs, and loops for BatchNorm, pooling, ReLU, LRN, softmax, dropout,
// element-wise add and concat. Exposed so tests can check them against naive loops.
#pragma once
#include <cstdint>

namespace possim::calibrate::cpu {

using i64 = std::int64_t;

// A convolution of a batch: n images of c x h x w into k x ho x wo.
struct ConvGeom {
  i64 n = 1, c = 1, h = 1, w = 1;  // input
  i64 k = 1, ho = 1, wo = 1;       // output
  int kh = 1, kw = 1, stride = 1, pad_h = 0, pad_w = 0, groups = 1;
  i64 col_rows() const { return (c / groups) * kh * kw; }  // per group
  i64 col_cols() const { return ho * wo; }
  bool direct() const {  // 1x1, stride 1, no padding: the input is its own column matrix
    return kh == 1 && kw == 1 && stride == 1 && pad_h == 0 && pad_w == 0;
  }
  i64 col_size() const { return col_rows() * col_cols(); }  // scratch floats needed
};

// Unfold group `g` of one image (c x h x w) into col (col_rows x col_cols).
void im2col(const ConvGeom& g, const float* image, int group, float* col);
// Fold col back, accumulating into one image's group `g` (the adjoint of im2col).
void col2im(const ConvGeom& g, const float* col, int group, float* image);

// y = conv(x, weight) + bias. weight: k x (c/groups) x kh x kw; bias may be null.
void conv_forward(const ConvGeom& g, const float* x, const float* weight, const float* bias,
                  float* y, float* col);
// dx = conv^T(dy, weight) (dx is overwritten).
void conv_backward_data(const ConvGeom& g, const float* dy, const float* weight, float* dx,
                        float* col);
// dweight = sum over images of dy * col(x)^T (overwritten); dbias = sum of dy (if not null).
void conv_backward_filter(const ConvGeom& g, const float* x, const float* dy, float* dweight,
                          float* dbias, float* col);

// FC: x is n x in, weight m x in (row-major), y n x m.
void fc_forward(i64 n, i64 m, i64 in, const float* x, const float* weight, const float* bias,
                float* y);
void fc_backward_data(i64 n, i64 m, i64 in, const float* dy, const float* weight, float* dx);
void fc_backward_filter(i64 n, i64 m, i64 in, const float* x, const float* dy, float* dweight,
                        float* dbias);

// Sufficient-factor rebuild: grad (m x n) = u (m x k) * v (k x n), row-major.
void sf_rebuild(i64 m, i64 n, i64 k, const float* u, const float* v, float* grad);

// BatchNorm, training mode, over n x c x hw. mean/inv_std are per channel (saved).
void bn_forward(i64 n, i64 c, i64 hw, const float* x, const float* gamma, const float* beta,
                float* y, float* mean, float* inv_std);
void bn_backward(i64 n, i64 c, i64 hw, const float* x, const float* dy, const float* gamma,
                 const float* mean, const float* inv_std, float* dx, float* dgamma, float* dbeta);

// Max pooling of n x c x h x w into ho x wo (windows clipped at the border, as Caffe);
// argmax holds, per output, the input offset within its (image, channel) plane.
struct PoolGeom {
  i64 n = 1, c = 1, h = 1, w = 1, ho = 1, wo = 1;
  int k = 2, stride = 2, pad = 0;
};
void maxpool_forward(const PoolGeom& g, const float* x, float* y, std::int32_t* argmax);
void maxpool_backward(const PoolGeom& g, const float* dy, const std::int32_t* argmax, float* dx);

void relu_forward(i64 count, const float* x, float* y);
void relu_backward(i64 count, const float* x, const float* dy, float* dx);

// Caffe's across-channel LRN: scale = 1 + alpha/size * sum of x^2 over `size` channels.
void lrn_forward(i64 n, i64 c, i64 hw, int size, const float* x, float* y, float* scale);
void lrn_backward(i64 n, i64 c, i64 hw, int size, const float* x, const float* y,
                  const float* scale, const float* dy, float* dx);

// Softmax over the `dim` values of each of n rows.
void softmax_forward(i64 n, i64 dim, const float* x, float* y);
void softmax_backward(i64 n, i64 dim, const float* y, const float* dy, float* dx);

// Dropout with ratio 0.5: draws a fresh mask (xorshift) on each forward.
void dropout_forward(i64 count, const float* x, float* y, std::uint8_t* mask, std::uint64_t& rng);
void dropout_backward(i64 count, const float* dy, const std::uint8_t* mask, float* dx);

void add_forward(i64 count, const float* a, const float* b, float* y);
// Copy `rows` blocks of `a_cols` + `b_cols` floats: concat along channels of two parts.
void concat_forward(i64 rows, i64 a_cols, i64 b_cols, const float* a, const float* b, float* y);
void concat_backward(i64 rows, i64 a_cols, i64 b_cols, const float* dy, float* da, float* db);

// How many threads Eigen's GEMMs use (OpenMP builds); returns the number in effect.
int set_threads(int threads);

}  // namespace possim::calibrate::cpu
