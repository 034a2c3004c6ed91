#include "kernels/cpu_kernels.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace possim::calibrate::cpu {

namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Map = Eigen::Map<RowMat>;
using CMap = Eigen::Map<const RowMat>;
using Vec = Eigen::Map<Eigen::VectorXf>;
using CVec = Eigen::Map<const Eigen::VectorXf>;

constexpr float kLrnAlpha = 1e-4f, kLrnBeta = 0.75f, kBnEps = 1e-5f;

}  // namespace

void im2col(const ConvGeom& g, const float* image, int group, float* col) {
  const i64 cg = g.c / g.groups;
  const float* img = image + i64(group) * cg * g.h * g.w;
  for (i64 ci = 0; ci < cg; ++ci)
    for (int i = 0; i < g.kh; ++i)
      for (int j = 0; j < g.kw; ++j) {
        float* row = col + ((ci * g.kh + i) * g.kw + j) * g.ho * g.wo;
        for (i64 y = 0; y < g.ho; ++y) {
          const i64 iy = y * g.stride - g.pad_h + i;
          float* out = row + y * g.wo;
          if (iy < 0 || iy >= g.h) {
            std::fill(out, out + g.wo, 0.0f);
            continue;
          }
          const float* in = img + (ci * g.h + iy) * g.w;
          for (i64 x = 0; x < g.wo; ++x) {
            const i64 ix = x * g.stride - g.pad_w + j;
            out[x] = ix >= 0 && ix < g.w ? in[ix] : 0.0f;
          }
        }
      }
}

void col2im(const ConvGeom& g, const float* col, int group, float* image) {
  const i64 cg = g.c / g.groups;
  float* img = image + i64(group) * cg * g.h * g.w;
  for (i64 ci = 0; ci < cg; ++ci)
    for (int i = 0; i < g.kh; ++i)
      for (int j = 0; j < g.kw; ++j) {
        const float* row = col + ((ci * g.kh + i) * g.kw + j) * g.ho * g.wo;
        for (i64 y = 0; y < g.ho; ++y) {
          const i64 iy = y * g.stride - g.pad_h + i;
          if (iy < 0 || iy >= g.h) continue;
          const float* in = row + y * g.wo;
          float* out = img + (ci * g.h + iy) * g.w;
          for (i64 x = 0; x < g.wo; ++x) {
            const i64 ix = x * g.stride - g.pad_w + j;
            if (ix >= 0 && ix < g.w) out[ix] += in[x];
          }
        }
      }
}

void conv_forward(const ConvGeom& g, const float* x, const float* weight, const float* bias,
                  float* y, float* col) {
  const i64 kg = g.k / g.groups, rows = g.col_rows(), cols = g.col_cols();
  const i64 in_img = g.c * g.h * g.w, out_img = g.k * cols;
  for (i64 b = 0; b < g.n; ++b) {
    for (int grp = 0; grp < g.groups; ++grp) {
      const float* src = col;
      if (g.direct()) {
        src = x + b * in_img + grp * rows * cols;
      } else {
        im2col(g, x + b * in_img, grp, col);
      }
      Map out(y + b * out_img + grp * kg * cols, kg, cols);
      out.noalias() = CMap(weight + grp * kg * rows, kg, rows) * CMap(src, rows, cols);
    }
    if (bias)
      for (i64 o = 0; o < g.k; ++o) {
        float* p = y + b * out_img + o * cols;
        const float v = bias[o];
        for (i64 i = 0; i < cols; ++i) p[i] += v;
      }
  }
}

void conv_backward_data(const ConvGeom& g, const float* dy, const float* weight, float* dx,
                        float* col) {
  const i64 kg = g.k / g.groups, rows = g.col_rows(), cols = g.col_cols();
  const i64 in_img = g.c * g.h * g.w, out_img = g.k * cols;
  for (i64 b = 0; b < g.n; ++b) {
    float* img = dx + b * in_img;
    if (!g.direct()) std::fill(img, img + in_img, 0.0f);
    for (int grp = 0; grp < g.groups; ++grp) {
      float* dst = g.direct() ? img + grp * rows * cols : col;
      Map(dst, rows, cols).noalias() = CMap(weight + grp * kg * rows, kg, rows).transpose() *
                                       CMap(dy + b * out_img + grp * kg * cols, kg, cols);
      if (!g.direct()) col2im(g, col, grp, img);
    }
  }
}

void conv_backward_filter(const ConvGeom& g, const float* x, const float* dy, float* dweight,
                          float* dbias, float* col) {
  const i64 kg = g.k / g.groups, rows = g.col_rows(), cols = g.col_cols();
  const i64 in_img = g.c * g.h * g.w, out_img = g.k * cols;
  std::fill(dweight, dweight + g.k * rows, 0.0f);
  if (dbias) std::fill(dbias, dbias + g.k, 0.0f);
  for (i64 b = 0; b < g.n; ++b) {
    for (int grp = 0; grp < g.groups; ++grp) {
      const float* src = col;
      if (g.direct()) {
        src = x + b * in_img + grp * rows * cols;
      } else {
        im2col(g, x + b * in_img, grp, col);
      }
      Map(dweight + grp * kg * rows, kg, rows).noalias() +=
          CMap(dy + b * out_img + grp * kg * cols, kg, cols) * CMap(src, rows, cols).transpose();
    }
    if (dbias)
      for (i64 o = 0; o < g.k; ++o) dbias[o] += CVec(dy + b * out_img + o * cols, cols).sum();
  }
}

void fc_forward(i64 n, i64 m, i64 in, const float* x, const float* weight, const float* bias,
                float* y) {
  Map out(y, n, m);
  out.noalias() = CMap(x, n, in) * CMap(weight, m, in).transpose();
  if (bias) out.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, m);
}

void fc_backward_data(i64 n, i64 m, i64 in, const float* dy, const float* weight, float* dx) {
  Map(dx, n, in).noalias() = CMap(dy, n, m) * CMap(weight, m, in);
}

void fc_backward_filter(i64 n, i64 m, i64 in, const float* x, const float* dy, float* dweight,
                        float* dbias) {
  Map(dweight, m, in).noalias() = CMap(dy, n, m).transpose() * CMap(x, n, in);
  if (dbias) Eigen::Map<Eigen::RowVectorXf>(dbias, m) = CMap(dy, n, m).colwise().sum();
}

void sf_rebuild(i64 m, i64 n, i64 k, const float* u, const float* v, float* grad) {
  Map(grad, m, n).noalias() = CMap(u, m, k) * CMap(v, k, n);
}

void bn_forward(i64 n, i64 c, i64 hw, const float* x, const float* gamma, const float* beta,
                float* y, float* mean, float* inv_std) {
  const double count = double(n * hw);
  for (i64 ch = 0; ch < c; ++ch) {
    double s = 0, s2 = 0;
    for (i64 b = 0; b < n; ++b) {
      const float* p = x + (b * c + ch) * hw;
      for (i64 i = 0; i < hw; ++i) {
        s += p[i];
        s2 += double(p[i]) * p[i];
      }
    }
    const double mu = s / count, var = std::max(0.0, s2 / count - mu * mu);
    mean[ch] = float(mu);
    inv_std[ch] = float(1.0 / std::sqrt(var + kBnEps));
    const float a = gamma[ch] * inv_std[ch], o = beta[ch] - a * mean[ch];
    for (i64 b = 0; b < n; ++b) {
      const float* p = x + (b * c + ch) * hw;
      float* q = y + (b * c + ch) * hw;
      for (i64 i = 0; i < hw; ++i) q[i] = a * p[i] + o;
    }
  }
}

void bn_backward(i64 n, i64 c, i64 hw, const float* x, const float* dy, const float* gamma,
                 const float* mean, const float* inv_std, float* dx, float* dgamma, float* dbeta) {
  const double count = double(n * hw);
  for (i64 ch = 0; ch < c; ++ch) {
    double sdy = 0, sdyx = 0;
    for (i64 b = 0; b < n; ++b) {
      const float* p = x + (b * c + ch) * hw;
      const float* d = dy + (b * c + ch) * hw;
      for (i64 i = 0; i < hw; ++i) {
        sdy += d[i];
        sdyx += double(d[i]) * (p[i] - mean[ch]) * inv_std[ch];
      }
    }
    dbeta[ch] = float(sdy);
    dgamma[ch] = float(sdyx);
    const float a = gamma[ch] * inv_std[ch];
    const float mdy = float(sdy / count), mdyx = float(sdyx / count);
    for (i64 b = 0; b < n; ++b) {
      const float* p = x + (b * c + ch) * hw;
      const float* d = dy + (b * c + ch) * hw;
      float* q = dx + (b * c + ch) * hw;
      for (i64 i = 0; i < hw; ++i) {
        const float xhat = (p[i] - mean[ch]) * inv_std[ch];
        q[i] = a * (d[i] - mdy - xhat * mdyx);
      }
    }
  }
}

void maxpool_forward(const PoolGeom& g, const float* x, float* y, std::int32_t* argmax) {
  for (i64 plane = 0; plane < g.n * g.c; ++plane) {
    const float* in = x + plane * g.h * g.w;
    float* out = y + plane * g.ho * g.wo;
    std::int32_t* arg = argmax + plane * g.ho * g.wo;
    for (i64 oy = 0; oy < g.ho; ++oy) {
      const i64 y0 = std::max<i64>(oy * g.stride - g.pad, 0);
      const i64 y1 = std::min<i64>(oy * g.stride - g.pad + g.k, g.h);
      for (i64 ox = 0; ox < g.wo; ++ox) {
        const i64 x0 = std::max<i64>(ox * g.stride - g.pad, 0);
        const i64 x1 = std::min<i64>(ox * g.stride - g.pad + g.k, g.w);
        float best = -std::numeric_limits<float>::infinity();
        std::int32_t where = -1;
        for (i64 iy = y0; iy < y1; ++iy)
          for (i64 ix = x0; ix < x1; ++ix) {
            const float v = in[iy * g.w + ix];
            const bool more = v > best;  // branch-free select: the data are unpredictable
            best = more ? v : best;
            where = more ? std::int32_t(iy * g.w + ix) : where;
          }
        out[oy * g.wo + ox] = where < 0 ? 0.0f : best;
        arg[oy * g.wo + ox] = where;
      }
    }
  }
}

void maxpool_backward(const PoolGeom& g, const float* dy, const std::int32_t* argmax, float* dx) {
  std::fill(dx, dx + g.n * g.c * g.h * g.w, 0.0f);
  for (i64 plane = 0; plane < g.n * g.c; ++plane) {
    float* out = dx + plane * g.h * g.w;
    const float* d = dy + plane * g.ho * g.wo;
    const std::int32_t* arg = argmax + plane * g.ho * g.wo;
    for (i64 i = 0; i < g.ho * g.wo; ++i)
      if (arg[i] >= 0) out[arg[i]] += d[i];
  }
}

void relu_forward(i64 count, const float* x, float* y) {
  for (i64 i = 0; i < count; ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
}

void relu_backward(i64 count, const float* x, const float* dy, float* dx) {
  for (i64 i = 0; i < count; ++i) dx[i] = x[i] > 0 ? dy[i] : 0.0f;
}

void lrn_forward(i64 n, i64 c, i64 hw, int size, const float* x, float* y, float* scale) {
  const int pre = (size - 1) / 2;
  const float a = kLrnAlpha / float(size);
  for (i64 b = 0; b < n; ++b) {
    const float* in = x + b * c * hw;
    float* sc = scale + b * c * hw;
    for (i64 p = 0; p < hw; ++p) {
      // Sliding window of squares over channels [ch - pre, ch - pre + size).
      float acc = 0;
      for (i64 ch = 0; ch < std::min<i64>(size - pre - 1, c); ++ch)
        acc += in[ch * hw + p] * in[ch * hw + p];
      for (i64 ch = 0; ch < c; ++ch) {
        const i64 add = ch + size - pre - 1, drop = ch - pre - 1;
        if (add < c) acc += in[add * hw + p] * in[add * hw + p];
        if (drop >= 0) acc -= in[drop * hw + p] * in[drop * hw + p];
        sc[ch * hw + p] = 1.0f + a * acc;
      }
    }
  }
  for (i64 i = 0; i < n * c * hw; ++i) y[i] = x[i] * std::pow(scale[i], -kLrnBeta);
}

void lrn_backward(i64 n, i64 c, i64 hw, int size, const float* x, const float* y,
                  const float* scale, const float* dy, float* dx) {
  const int pre = (size - 1) / 2;
  const float f = 2.0f * kLrnAlpha * kLrnBeta / float(size);
  for (i64 b = 0; b < n; ++b) {
    const i64 off = b * c * hw;
    for (i64 p = 0; p < hw; ++p) {
      // ratio[ch] = dy * y / scale, summed over the window each input channel falls into.
      float acc = 0;
      auto ratio = [&](i64 ch) {
        const i64 i = off + ch * hw + p;
        return dy[i] * y[i] / scale[i];
      };
      for (i64 ch = 0; ch < std::min<i64>(pre, c); ++ch) acc += ratio(ch);
      for (i64 ch = 0; ch < c; ++ch) {
        const i64 add = ch + pre, drop = ch + pre - size;
        if (add < c) acc += ratio(add);
        if (drop >= 0) acc -= ratio(drop);
        const i64 i = off + ch * hw + p;
        dx[i] = dy[i] * std::pow(scale[i], -kLrnBeta) - f * x[i] * acc;
      }
    }
  }
}

void softmax_forward(i64 n, i64 dim, const float* x, float* y) {
  for (i64 r = 0; r < n; ++r) {
    const float* in = x + r * dim;
    float* out = y + r * dim;
    const float mx = *std::max_element(in, in + dim);
    double s = 0;
    for (i64 i = 0; i < dim; ++i) s += out[i] = std::exp(in[i] - mx);
    const float inv = float(1.0 / s);
    for (i64 i = 0; i < dim; ++i) out[i] *= inv;
  }
}

void softmax_backward(i64 n, i64 dim, const float* y, const float* dy, float* dx) {
  for (i64 r = 0; r < n; ++r) {
    const float* yy = y + r * dim;
    const float* d = dy + r * dim;
    double dot = 0;
    for (i64 i = 0; i < dim; ++i) dot += double(d[i]) * yy[i];
    for (i64 i = 0; i < dim; ++i) dx[r * dim + i] = yy[i] * (d[i] - float(dot));
  }
}

void dropout_forward(i64 count, const float* x, float* y, std::uint8_t* mask, std::uint64_t& rng) {
  std::uint64_t s = rng ? rng : 0x9e3779b97f4a7c15ull;
  for (i64 i = 0; i < count; i += 64) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    const i64 end = std::min<i64>(i + 64, count);
    for (i64 j = i; j < end; ++j) {
      mask[j] = std::uint8_t((s >> (j - i)) & 1u);
      y[j] = mask[j] ? 2.0f * x[j] : 0.0f;
    }
  }
  rng = s;
}

void dropout_backward(i64 count, const float* dy, const std::uint8_t* mask, float* dx) {
  for (i64 i = 0; i < count; ++i) dx[i] = mask[i] ? 2.0f * dy[i] : 0.0f;
}

void add_forward(i64 count, const float* a, const float* b, float* y) {
  for (i64 i = 0; i < count; ++i) y[i] = a[i] + b[i];
}

void concat_forward(i64 rows, i64 a_cols, i64 b_cols, const float* a, const float* b, float* y) {
  for (i64 r = 0; r < rows; ++r) {
    float* out = y + r * (a_cols + b_cols);
    std::memcpy(out, a + r * a_cols, std::size_t(a_cols) * sizeof(float));
    std::memcpy(out + a_cols, b + r * b_cols, std::size_t(b_cols) * sizeof(float));
  }
}

void concat_backward(i64 rows, i64 a_cols, i64 b_cols, const float* dy, float* da, float* db) {
  for (i64 r = 0; r < rows; ++r) {
    const float* in = dy + r * (a_cols + b_cols);
    std::memcpy(da + r * a_cols, in, std::size_t(a_cols) * sizeof(float));
    std::memcpy(db + r * b_cols, in + a_cols, std::size_t(b_cols) * sizeof(float));
  }
}

int set_threads(int threads) {
#ifdef POSSIM_HAVE_OPENMP
  Eigen::setNbThreads(std::max(1, threads));
  return Eigen::nbThreads();
#else
  (void)threads;
  return 1;
#endif
}

}  // namespace possim::calibrate::cpu
