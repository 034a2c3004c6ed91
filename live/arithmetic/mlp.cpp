#include "live/arithmetic/mlp.hpp"

#include <cmath>

#include "model/input/error.hpp"

namespace possim::live::arith {

namespace {
using ConstMap = Eigen::Map<const Matrix>;
constexpr std::uint64_t kInitStream = 100;
}  // namespace

Mlp::Mlp(const Network& net) {
  const auto refuse = [&](const Layer& l, const std::string& why) {
    throw InputError("model", l.name,
                     "layer '" + l.name + "' (" + to_string(l.kind) + ") of " + net.name + " " + why,
                     "arithmetic compute evaluates networks of fc, relu and softmax layers ending in softmax");
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
        kinds_.push_back(Kind::fc);
        break;
      case LayerKind::relu: kinds_.push_back(Kind::relu); break;
      case LayerKind::softmax: kinds_.push_back(Kind::softmax); break;
      default: refuse(l, "has no arithmetic here");
    }
    if (l.kind != LayerKind::fc && l.has_params()) refuse(l, "has parameters");
    in_.push_back(int(in));
    out_.push_back(int(out));
    width = out;
  }
  if (kinds_.empty() || kinds_.back() != Kind::softmax)
    throw InputError("model", net.name, net.name + " does not end in a softmax layer",
                     "arithmetic compute needs a classifier (fc ... softmax)");
  classes_ = out_.back();
  const std::size_t n = std::size_t(layers());
  act_.resize(n + 1);
  delta_.resize(n);
  u_.resize(n);
  grad_.resize(n);
}

Params Mlp::initial(std::uint64_t seed) const {
  Params p(static_cast<std::size_t>(layers()));
  for (int l = 0; l < layers(); ++l) {
    if (kinds_[std::size_t(l)] != Kind::fc) continue;
    const int m = out_[std::size_t(l)], k = in_[std::size_t(l)];
    const double a = std::sqrt(6.0 / double(m + k));
    std::vector<float>& w = p[std::size_t(l)];
    w.assign(std::size_t(m) * std::size_t(k + 1), 0.0f);
    for (std::size_t i = 0; i < std::size_t(m) * std::size_t(k); ++i)
      w[i] = float((2 * uniform01(seed, kInitStream + std::uint64_t(l), i) - 1) * a);
  }
  return p;
}

void Mlp::begin(Batch batch) {
  act_[0] = std::move(batch.x);
  labels_ = std::move(batch.labels);
}

void Mlp::forward(int l, const std::vector<float>& params) {
  const Matrix& x = act_[std::size_t(l)];
  Matrix& y = act_[std::size_t(l) + 1];
  switch (kinds_[std::size_t(l)]) {
    case Kind::fc: {
      const int m = out_[std::size_t(l)], k = in_[std::size_t(l)];
      const ConstMap w(params.data(), m, k);
      const Eigen::Map<const RowVector> b(params.data() + std::size_t(m) * std::size_t(k), m);
      y = x * w.transpose();
      y.rowwise() += b;
      return;
    }
    case Kind::relu: y = x.cwiseMax(0.0f); return;
    case Kind::softmax: {
      y.resize(x.rows(), x.cols());
      double loss = 0;
      for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const float top = x.row(r).maxCoeff();
        y.row(r) = (x.row(r).array() - top).exp().matrix();
        const float sum = y.row(r).sum();
        y.row(r) /= sum;
        loss -= std::log(std::max(1e-30, double(y(r, labels_[std::size_t(r)]))));
      }
      loss_ = loss / double(x.rows());
      return;
    }
  }
}

void Mlp::backward(int l, const std::vector<float>& params) {
  const std::size_t i = std::size_t(l);
  const Matrix& x = act_[i];
  Matrix d_in;
  switch (kinds_[i]) {
    case Kind::softmax: {  // d(mean cross-entropy)/d(logits) = (p - onehot) / samples
      d_in = act_[i + 1];
      for (Eigen::Index r = 0; r < d_in.rows(); ++r) d_in(r, labels_[std::size_t(r)]) -= 1.0f;
      d_in /= float(d_in.rows());
      break;
    }
    case Kind::relu:
      d_in = delta_[i].cwiseProduct((x.array() > 0.0f).cast<float>().matrix());
      break;
    case Kind::fc: {
      const int m = out_[i], k = in_[i];
      u_[i] = delta_[i];
      grad_[i] = rebuild({&u_[i]}, {&x}, 1.0f);
      if (l > 0) d_in = delta_[i] * ConstMap(params.data(), m, k);
      break;
    }
  }
  if (l > 0) delta_[i - 1] = std::move(d_in);
}

std::vector<float> Mlp::rebuild(const std::vector<const Matrix*>& u, const std::vector<const Matrix*>& v, float scale) {
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
