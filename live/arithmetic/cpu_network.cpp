#include "live/arithmetic/cpu_network.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/input/error.hpp"

namespace possim::live::arith {

namespace {

using ConstMap = Eigen::Map<const Matrix>;
constexpr std::uint64_t kInitStream = 100;

// Visits every (patch row, output position) of a conv layer: f(row, column, pixel), pixel
// being the input element it reads, or -1 in the padding.
template <class F>
void for_each_patch_element(const Layer& l, F f) {
  const int cin = int(l.in.c), h = int(l.in.h), w = int(l.in.w), ho = int(l.out.h), wo = int(l.out.w);
  for (int c = 0; c < cin; ++c)
    for (int i = 0; i < l.kernel_h; ++i)
      for (int j = 0; j < l.kernel_w; ++j) {
        const int row = (c * l.kernel_h + i) * l.kernel_w + j;
        for (int oh = 0; oh < ho; ++oh) {
          const int y = oh * l.stride - l.pad_h + i;
          for (int ow = 0; ow < wo; ++ow) {
            const int xx = ow * l.stride - l.pad_w + j;
            f(row, oh * wo + ow, (y >= 0 && y < h && xx >= 0 && xx < w) ? (c * h + y) * w + xx : -1);
          }
        }
      }
}

// A conv layer's input patches as columns: (cin kh kw) x (ho wo), zero outside the image.
Matrix im2col(const float* x, const Layer& l) {
  Matrix col(l.in.c * l.kernel_h * l.kernel_w, l.out.h * l.out.w);
  for_each_patch_element(l, [&](int row, int column, int pixel) { col(row, column) = pixel >= 0 ? x[pixel] : 0.0f; });
  return col;
}

// Adds columns back onto the image they were taken from (the adjoint of im2col).
void col2im_add(const Matrix& col, const Layer& l, float* x) {
  for_each_patch_element(l, [&](int row, int column, int pixel) {
    if (pixel >= 0) x[pixel] += col(row, column);
  });
}

// Caffe's pooling window of output (oh, ow): [h0, h1) x [w0, w1) inside the image, and the
// count an average divides by (the window clipped to the padded image, not to the image).
struct Window {
  int h0, h1, w0, w1, count;
};
Window window(const Layer& l, int oh, int ow) {
  const int h = int(l.in.h), w = int(l.in.w);
  int h0 = oh * l.stride - l.pad_h, w0 = ow * l.stride - l.pad_w;
  int h1 = std::min(h0 + l.kernel_h, h + l.pad_h), w1 = std::min(w0 + l.kernel_w, w + l.pad_w);
  const int count = (h1 - h0) * (w1 - w0);
  h0 = std::max(h0, 0), w0 = std::max(w0, 0), h1 = std::min(h1, h), w1 = std::min(w1, w);
  return {h0, h1, w0, w1, count};
}

}  // namespace

CpuNetwork::CpuNetwork(const Network& net) {
  const auto refuse = [&](const Layer& l, const std::string& why) {
    throw InputError("model", l.name, "layer '" + l.name + "' (" + to_string(l.kind) + ") of " + net.name + " " + why,
                     "arithmetic compute evaluates conv (groups 1), pool, fc, relu and softmax layers, ending in softmax");
  };
  std::int64_t width = -1;
  for (const Layer& l : net.layers) {
    const std::int64_t in = l.in.elements(), out = l.out.elements();
    if (width >= 0 && in != width) refuse(l, "takes " + std::to_string(in) + " inputs after " + std::to_string(width));
    if (width < 0) features_ = int(in);
    switch (l.kind) {
      case LayerKind::fc:
        if (l.fc_m != out || l.fc_n != in || l.weight_params != in * out || l.bias_params != out)
          refuse(l, "is not a biased outputs x inputs matrix");
        break;
      case LayerKind::conv: {
        const bool fits = l.kernel_h > 0 && l.kernel_w > 0 && l.stride > 0 &&
                          l.out.h == (l.in.h + 2 * l.pad_h - l.kernel_h) / l.stride + 1 &&
                          l.out.w == (l.in.w + 2 * l.pad_w - l.kernel_w) / l.stride + 1;
        if (l.groups != 1 || !fits || l.weight_params != l.out.c * l.in.c * l.kernel_h * l.kernel_w ||
            (l.bias_params != 0 && l.bias_params != l.out.c))
          refuse(l, "is not a convolution of its shapes with one group");
        break;
      }
      case LayerKind::pool: {
        bool fits = l.out.c == l.in.c && l.kernel_h > 0 && l.kernel_w > 0 && l.stride > 0;
        for (int oh = 0; fits && oh < l.out.h; ++oh)
          for (int ow = 0; fits && ow < l.out.w; ++ow) {
            const Window win = window(l, oh, ow);
            fits = win.h0 < win.h1 && win.w0 < win.w1;
          }
        if (!fits) refuse(l, "has a pooling window outside its input");
        break;
      }
      case LayerKind::relu:
      case LayerKind::softmax:
        if (out != in) refuse(l, "changes the shape");
        break;
      default: refuse(l, "has no arithmetic here");
    }
    if (l.kind != LayerKind::fc && l.kind != LayerKind::conv && l.has_params()) refuse(l, "has parameters");
    if (in > std::numeric_limits<int>::max() / 4 || out > std::numeric_limits<int>::max() / 4)
      refuse(l, "is too large to evaluate here");
    layers_.push_back(l);
    width = out;
  }
  if (layers_.empty() || layers_.back().kind != LayerKind::softmax)
    throw InputError("model", net.name, net.name + " does not end in a softmax layer",
                     "arithmetic compute needs a classifier (... softmax)");
  classes_ = int(layers_.back().out.elements());
  const std::size_t n = layers_.size();
  act_.resize(n + 1);
  delta_.resize(n);
  u_.resize(n);
  grad_.resize(n);
  argmax_.resize(n);
}

std::size_t CpuNetwork::unit_inputs(int l) const {
  const Layer& x = layers_[std::size_t(l)];
  return x.kind == LayerKind::conv ? std::size_t(x.in.c * x.kernel_h * x.kernel_w) : std::size_t(x.in.elements());
}

Params CpuNetwork::initial(std::uint64_t seed) const {
  Params p(static_cast<std::size_t>(layers()));
  for (int l = 0; l < layers(); ++l) {
    const Layer& x = layers_[std::size_t(l)];
    if (!x.has_params()) continue;
    // Glorot: fan in = a unit's inputs, fan out = the units an input feeds (times the kernel area).
    const double fan_out = x.kind == LayerKind::conv ? double(x.out.c * x.kernel_h * x.kernel_w) : double(x.fc_m);
    const double a = std::sqrt(6.0 / (double(unit_inputs(l)) + fan_out));
    std::vector<float>& w = p[std::size_t(l)];
    w.assign(std::size_t(x.params()), 0.0f);
    for (std::size_t i = 0; i < std::size_t(x.weight_params); ++i)
      w[i] = float((2 * uniform01(seed, kInitStream + std::uint64_t(l), i) - 1) * a);
  }
  return p;
}

void CpuNetwork::begin(Batch batch) {
  act_[0] = std::move(batch.x);
  labels_ = std::move(batch.labels);
}

void CpuNetwork::forward(int l, const std::vector<float>& params) {
  const Layer& x = layers_[std::size_t(l)];
  const Matrix& in = act_[std::size_t(l)];
  Matrix& y = act_[std::size_t(l) + 1];
  switch (x.kind) {
    case LayerKind::fc: {
      const int m = int(x.fc_m), k = int(x.fc_n);
      y = in * ConstMap(params.data(), m, k).transpose();
      y.rowwise() += Eigen::Map<const RowVector>(params.data() + std::size_t(m) * std::size_t(k), m);
      return;
    }
    case LayerKind::conv: conv_forward(l, params); return;
    case LayerKind::pool: pool_forward(l); return;
    case LayerKind::relu: y = in.cwiseMax(0.0f); return;
    case LayerKind::softmax: {
      y.resize(in.rows(), in.cols());
      double loss = 0;
      for (Eigen::Index r = 0; r < in.rows(); ++r) {
        const float top = in.row(r).maxCoeff();
        y.row(r) = (in.row(r).array() - top).exp().matrix();
        y.row(r) /= y.row(r).sum();
        loss -= std::log(std::max(1e-30, double(y(r, labels_[std::size_t(r)]))));
      }
      loss_ = loss / double(in.rows());
      return;
    }
    default: return;
  }
}

void CpuNetwork::backward(int l, const std::vector<float>& params) {
  const std::size_t i = std::size_t(l);
  const Layer& x = layers_[i];
  Matrix d_in;
  switch (x.kind) {
    case LayerKind::softmax:  // d(mean cross-entropy)/d(logits) = (p - onehot) / samples
      d_in = act_[i + 1];
      for (Eigen::Index r = 0; r < d_in.rows(); ++r) d_in(r, labels_[std::size_t(r)]) -= 1.0f;
      d_in /= float(d_in.rows());
      break;
    case LayerKind::relu: d_in = delta_[i].cwiseProduct((act_[i].array() > 0.0f).cast<float>().matrix()); break;
    case LayerKind::fc:
      u_[i] = delta_[i];
      grad_[i] = rebuild({&u_[i]}, {&act_[i]}, 1.0f);
      if (l > 0) d_in = delta_[i] * ConstMap(params.data(), Eigen::Index(x.fc_m), Eigen::Index(x.fc_n));
      break;
    case LayerKind::conv: conv_backward(l, params, l > 0 ? &d_in : nullptr); break;
    case LayerKind::pool: pool_backward(l, &d_in); break;
    default: break;
  }
  if (l > 0) delta_[i - 1] = std::move(d_in);
}

void CpuNetwork::conv_forward(int l, const std::vector<float>& params) {
  const Layer& x = layers_[std::size_t(l)];
  const Matrix& in = act_[std::size_t(l)];
  Matrix& y = act_[std::size_t(l) + 1];
  const Eigen::Index cout = x.out.c, hw = x.out.h * x.out.w, k = Eigen::Index(unit_inputs(l));
  const ConstMap w(params.data(), cout, k);
  y.resize(in.rows(), cout * hw);
  for (Eigen::Index n = 0; n < in.rows(); ++n) {
    Eigen::Map<Matrix> out(y.row(n).data(), cout, hw);
    out.noalias() = w * im2col(in.row(n).data(), x);
    if (x.bias_params > 0) out.colwise() += Eigen::Map<const Eigen::VectorXf>(params.data() + cout * k, cout);
  }
}

void CpuNetwork::conv_backward(int l, const std::vector<float>& params, Matrix* d_in) {
  const std::size_t i = std::size_t(l);
  const Layer& x = layers_[i];
  const Matrix& in = act_[i];
  const Eigen::Index cout = x.out.c, hw = x.out.h * x.out.w, k = Eigen::Index(unit_inputs(l));
  const ConstMap w(params.data(), cout, k);
  Matrix dw = Matrix::Zero(cout, k);
  Eigen::VectorXf db = Eigen::VectorXf::Zero(cout);
  if (d_in) *d_in = Matrix::Zero(in.rows(), in.cols());
  for (Eigen::Index n = 0; n < in.rows(); ++n) {
    const Eigen::Map<const Matrix> dout(delta_[i].row(n).data(), cout, hw);
    const Matrix col = im2col(in.row(n).data(), x);
    dw.noalias() += dout * col.transpose();
    db += dout.rowwise().sum();
    if (d_in) col2im_add(w.transpose() * dout, x, d_in->row(n).data());
  }
  std::vector<float>& g = grad_[i];
  g.assign(std::size_t(x.params()), 0.0f);
  Eigen::Map<Matrix>(g.data(), cout, k) = dw;
  if (x.bias_params > 0) Eigen::Map<Eigen::VectorXf>(g.data() + cout * k, cout) = db;
}

void CpuNetwork::pool_forward(int l) {
  const Layer& x = layers_[std::size_t(l)];
  const Matrix& in = act_[std::size_t(l)];
  Matrix& y = act_[std::size_t(l) + 1];
  const int c = int(x.in.c), h = int(x.in.h), w = int(x.in.w), ho = int(x.out.h), wo = int(x.out.w);
  y.resize(in.rows(), Eigen::Index(c) * ho * wo);
  std::vector<int>& arg = argmax_[std::size_t(l)];
  if (!x.average_pool) arg.assign(std::size_t(y.size()), 0);
  for (Eigen::Index n = 0; n < in.rows(); ++n)
    for (int ch = 0; ch < c; ++ch)
      for (int oh = 0; oh < ho; ++oh)
        for (int ow = 0; ow < wo; ++ow) {
          const Window win = window(x, oh, ow);
          const Eigen::Index o = (Eigen::Index(ch) * ho + oh) * wo + ow;
          float acc = x.average_pool ? 0.0f : -std::numeric_limits<float>::infinity();
          int best = 0;
          for (int yy = win.h0; yy < win.h1; ++yy)
            for (int xx = win.w0; xx < win.w1; ++xx) {
              const int at = (ch * h + yy) * w + xx;
              const float v = in(n, at);
              if (x.average_pool) acc += v;
              else if (v > acc) acc = v, best = at;
            }
          y(n, o) = x.average_pool ? acc / float(win.count) : acc;
          if (!x.average_pool) arg[std::size_t(n * y.cols() + o)] = best;
        }
}

void CpuNetwork::pool_backward(int l, Matrix* d_in) {
  const std::size_t i = std::size_t(l);
  const Layer& x = layers_[i];
  const Matrix& d = delta_[i];
  const int c = int(x.in.c), h = int(x.in.h), w = int(x.in.w), ho = int(x.out.h), wo = int(x.out.w);
  *d_in = Matrix::Zero(act_[i].rows(), act_[i].cols());
  for (Eigen::Index n = 0; n < d.rows(); ++n)
    for (int ch = 0; ch < c; ++ch)
      for (int oh = 0; oh < ho; ++oh)
        for (int ow = 0; ow < wo; ++ow) {
          const Eigen::Index o = (Eigen::Index(ch) * ho + oh) * wo + ow;
          if (!x.average_pool) {
            (*d_in)(n, argmax_[i][std::size_t(n * d.cols() + o)]) += d(n, o);
            continue;
          }
          const Window win = window(x, oh, ow);
          for (int yy = win.h0; yy < win.h1; ++yy)
            for (int xx = win.w0; xx < win.w1; ++xx) (*d_in)(n, (ch * h + yy) * w + xx) += d(n, o) / float(win.count);
        }
}

std::vector<float> CpuNetwork::rebuild(const std::vector<const Matrix*>& u, const std::vector<const Matrix*>& v,
                                       float scale) {
  const Eigen::Index m = u.front()->cols(), k = v.front()->cols();
  Matrix w = Matrix::Zero(m, k);
  RowVector b = RowVector::Zero(m);
  for (std::size_t p = 0; p < u.size(); ++p) {
    w.noalias() += u[p]->transpose() * *v[p];
    b += u[p]->colwise().sum();
  }
  std::vector<float> g(std::size_t(m * (k + 1)));
  Eigen::Map<Matrix>(g.data(), m, k) = w * scale;
  Eigen::Map<RowVector>(g.data() + m * k, m) = b * scale;
  return g;
}

}  // namespace possim::live::arith
