#include "model/workload/zoo/net_builder.hpp"

#include <stdexcept>
#include <utility>

namespace possim::zoo {

namespace {
// Element-operation counts per output element for the non-GEMM kinds (rough, by design:
// these layers are memory-bound and their FLOPs only matter as a small share).
constexpr double kReluOps = 1, kBnOps = 4, kAddOps = 1, kConcatOps = 1, kDropoutOps = 2,
                 kSoftmaxOps = 5, kLrnOpsPerWindow = 5;

std::int64_t conv_out(std::int64_t in, int k, int stride, int pad) {
  return (in + 2 * pad - k) / stride + 1;
}

// Caffe's PoolingLayer: round up, but never start a window inside the bottom padding.
std::int64_t pool_out(std::int64_t in, int k, int stride, int pad, bool ceil) {
  const std::int64_t span = in + 2 * pad - k;
  if (!ceil) return span / stride + 1;
  std::int64_t out = (span + stride - 1) / stride + 1;
  if (pad > 0 && (out - 1) * stride >= in + pad) --out;
  return out;
}
}  // namespace

NetBuilder::NetBuilder(std::string name, std::string description, Shape input) : cur_(input) {
  net_.name = std::move(name);
  net_.description = std::move(description);
  net_.input = input;
}

Shape NetBuilder::push(Layer l) {
  if (net_.find(l.name) >= 0) throw std::logic_error("duplicate layer name " + l.name);
  if (l.out.c <= 0 || l.out.h <= 0 || l.out.w <= 0)
    throw std::logic_error("layer " + l.name + " has an empty output");
  cur_ = l.out;
  net_.layers.push_back(std::move(l));
  return cur_;
}

Shape NetBuilder::conv(const std::string& name, std::int64_t cout, int k, int stride, int pad,
                       int groups, bool bias) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::conv;
  l.in = cur_;
  l.out = {cout, conv_out(cur_.h, k, stride, pad), conv_out(cur_.w, k, stride, pad)};
  if (cur_.c % groups != 0 || cout % groups != 0)
    throw std::logic_error("layer " + name + ": channels not divisible by groups");
  l.kernel_h = l.kernel_w = k;
  l.stride = stride;
  l.pad_h = l.pad_w = pad;
  l.groups = groups;
  l.weight_params = cout * (cur_.c / groups) * k * k;
  l.bias_params = bias ? cout : 0;
  l.fwd_macs = double(l.out.elements()) * double(cur_.c / groups) * k * k;
  l.fwd_flops = 2 * l.fwd_macs;
  // The first conv needs no gradient for its input (the image): weight gradient only.
  l.bwd_flops = (seen_conv_ ? 2 : 1) * l.fwd_flops;
  seen_conv_ = true;
  return push(std::move(l));
}

Shape NetBuilder::conv_rect(const std::string& name, std::int64_t cout, int kh, int kw,
                            int pad_h, int pad_w) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::conv;
  l.in = cur_;
  l.out = {cout, conv_out(cur_.h, kh, 1, pad_h), conv_out(cur_.w, kw, 1, pad_w)};
  l.kernel_h = kh;
  l.kernel_w = kw;
  l.pad_h = pad_h;
  l.pad_w = pad_w;
  l.weight_params = cout * cur_.c * kh * kw;
  l.fwd_macs = double(l.out.elements()) * double(cur_.c) * kh * kw;
  l.fwd_flops = 2 * l.fwd_macs;
  l.bwd_flops = (seen_conv_ ? 2 : 1) * l.fwd_flops;
  seen_conv_ = true;
  return push(std::move(l));
}

Shape NetBuilder::fc(const std::string& name, std::int64_t out) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::fc;
  l.in = cur_;
  l.out = {out, 1, 1};
  l.fc_m = out;
  l.fc_n = cur_.elements();
  l.weight_params = l.fc_m * l.fc_n;
  l.bias_params = out;
  l.fwd_macs = double(l.fc_m) * double(l.fc_n);
  l.fwd_flops = 2 * l.fwd_macs;
  l.bwd_flops = 2 * l.fwd_flops;
  return push(std::move(l));
}

Shape NetBuilder::elementwise(const std::string& name, LayerKind kind, const Shape& out,
                              double ops) {
  Layer l;
  l.name = name;
  l.kind = kind;
  l.in = kind == LayerKind::concat || kind == LayerKind::add ? out : cur_;
  l.out = out;
  l.fwd_flops = ops * double(out.elements());
  l.bwd_flops = 2 * l.fwd_flops;
  return push(std::move(l));
}

Shape NetBuilder::bn(const std::string& name) {
  const std::int64_t c = cur_.c;
  elementwise(name, LayerKind::bn, cur_, kBnOps);
  net_.layers.back().weight_params = c;  // gamma
  net_.layers.back().bias_params = c;    // beta
  return cur_;
}

Shape NetBuilder::relu(const std::string& name) {
  return elementwise(name, LayerKind::relu, cur_, kReluOps);
}
Shape NetBuilder::lrn(const std::string& name, int local_size) {
  return elementwise(name, LayerKind::lrn, cur_, kLrnOpsPerWindow * local_size);
}
Shape NetBuilder::dropout(const std::string& name) {
  return elementwise(name, LayerKind::dropout, cur_, kDropoutOps);
}
Shape NetBuilder::softmax(const std::string& name) {
  return elementwise(name, LayerKind::softmax, cur_, kSoftmaxOps);
}

Shape NetBuilder::pool(const std::string& name, int k, int stride, int pad, bool ceil) {
  const Shape out{cur_.c, pool_out(cur_.h, k, stride, pad, ceil),
                  pool_out(cur_.w, k, stride, pad, ceil)};
  elementwise(name, LayerKind::pool, out, double(k) * k);
  Layer& l = net_.layers.back();
  l.kernel_h = l.kernel_w = k;
  l.stride = stride;
  l.pad_h = l.pad_w = pad;
  return cur_;
}
Shape NetBuilder::max_pool(const std::string& name, int k, int stride, int pad, bool ceil) {
  return pool(name, k, stride, pad, ceil);
}
Shape NetBuilder::avg_pool(const std::string& name, int k, int stride, int pad, bool ceil) {
  const Shape out = pool(name, k, stride, pad, ceil);
  net_.layers.back().average_pool = true;
  return out;
}

Shape NetBuilder::concat(const std::string& name, const std::vector<Shape>& parts) {
  if (parts.empty()) throw std::logic_error("concat " + name + " has no inputs");
  Shape out{0, parts.front().h, parts.front().w};
  for (const Shape& p : parts) {
    if (p.h != out.h || p.w != out.w)
      throw std::logic_error("concat " + name + ": branch sizes differ");
    out.c += p.c;
  }
  return elementwise(name, LayerKind::concat, out, kConcatOps);
}

Shape NetBuilder::add(const std::string& name, const Shape& a, const Shape& b) {
  if (!(a == b)) throw std::logic_error("add " + name + ": shapes differ");
  return elementwise(name, LayerKind::add, a, kAddOps);
}

}  // namespace possim::zoo
