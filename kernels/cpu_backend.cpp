#include "kernels/cpu_backend.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <fstream>
#include <string>
#include <vector>

#include "kernels/cpu_kernels.hpp"
#include "kernels/timing.hpp"
#include "model/input/error.hpp"

namespace possim::calibrate {

namespace {

using cpu::i64;

// A float buffer filled with reproducible values in [-1, 1).
std::vector<float> filled(i64 count, std::uint32_t seed) {
  std::vector<float> v(std::size_t(std::max<i64>(count, 1)));
  std::uint32_t s = seed * 2654435761u + 1u;
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = float(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
  }
  return v;
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string s = line.substr(colon + 1);
        s.erase(0, s.find_first_not_of(' '));
        return s;
      }
    }
  return "unknown CPU";
}

cpu::ConvGeom conv_geom(const Layer& l, int batch) {
  cpu::ConvGeom g;
  g.n = batch;
  g.c = l.in.c;
  g.h = l.in.h;
  g.w = l.in.w;
  g.k = l.out.c;
  g.ho = l.out.h;
  g.wo = l.out.w;
  g.kh = l.kernel_h;
  g.kw = l.kernel_w;
  g.stride = l.stride;
  g.pad_h = l.pad_h;
  g.pad_w = l.pad_w;
  g.groups = l.groups;
  const std::string where = "layer '" + l.name + "'";
  if (g.kh < 1 || g.kw < 1 || g.stride < 1 || g.groups < 1 || g.pad_h < 0 || g.pad_w < 0)
    throw InputError(where, "kernel/stride/pad/groups", "convolution geometry is missing",
                     "kernel >= 1, stride >= 1, pad >= 0, groups >= 1");
  if (g.c % g.groups || g.k % g.groups)
    throw InputError(where, "groups", "channels are not divisible by groups", "a divisor of both");
  if ((g.h + 2 * g.pad_h - g.kh) / g.stride + 1 != g.ho ||
      (g.w + 2 * g.pad_w - g.kw) / g.stride + 1 != g.wo)
    throw InputError(where, "out", "output size does not follow from input, kernel, stride and pad",
                     "(in + 2 pad - kernel) / stride + 1");
  return g;
}

// A layer's kernels with the buffers they run over (filled with reproducible values).
// Buffers never move once made: the kernels hold pointers into them.
class HostLayer : public PreparedLayer {
 public:
  std::vector<Kernel> fwd, bwd;  // each pass's kernels, in order

  void forward() override { run(fwd); }
  void backward() override { run(bwd); }
  double bytes() const override { return bytes_; }

  float* floats(i64 count, std::uint32_t seed) {
    floats_.push_back(filled(count, seed));
    bytes_ += double(floats_.back().size()) * sizeof(float);
    return floats_.back().data();
  }
  std::int32_t* ints(i64 count) {
    ints_.emplace_back(std::size_t(std::max<i64>(count, 1)));
    bytes_ += double(ints_.back().size()) * sizeof(std::int32_t);
    return ints_.back().data();
  }
  std::uint8_t* bytes_of(i64 count) {
    bytes8_.emplace_back(std::size_t(std::max<i64>(count, 1)));
    bytes_ += double(bytes8_.back().size());
    return bytes8_.back().data();
  }
  std::uint64_t* state(std::uint64_t value) {
    state_.push_back(value);
    return &state_.back();
  }
  void add(std::vector<Kernel>& pass, std::string name, std::string algorithm,
           std::function<void()> run, double flops = 0) {
    pass.push_back(Kernel{std::move(name), std::move(algorithm), flops, std::move(run)});
  }

 private:
  static void run(const std::vector<Kernel>& ks) {
    for (const Kernel& k : ks) k.run();
  }
  // Deques: growing them never moves what they hold.
  std::deque<std::vector<float>> floats_;
  std::deque<std::vector<std::int32_t>> ints_;
  std::deque<std::vector<std::uint8_t>> bytes8_;
  std::deque<std::uint64_t> state_;
  double bytes_ = 0;
};

class CpuBackend : public KernelBackend {
 public:
  explicit CpuBackend(int threads)
      : threads_(cpu::set_threads(threads)), device_(cpu_model_name()) {}

  std::string name() const override { return "cpu"; }
  std::string device() const override { return device_ + " (CPU backend)"; }
  bool copies_cross_a_bus() const override { return false; }

  nlohmann::json describe() const override {
    return {{"backend", "cpu"},
            {"device", device_},
            {"library", "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                            std::to_string(EIGEN_MAJOR_VERSION) + "." +
                            std::to_string(EIGEN_MINOR_VERSION)},
            {"simd", Eigen::SimdInstructionSetsInUse()},
            {"threads", threads_},
            {"compiler", std::string("GCC-compatible ") + __VERSION__},
            {"precision", "fp32"},
            {"timer",
             "std::chrono::steady_clock around each call, warm-up runs first, median of repeats"},
            {"algorithms",
             {{"conv", "im2col + Eigen GEMM per image (1x1 stride-1 convs use the input directly)"},
              {"fc", "Eigen GEMM"},
              {"bn", "two-pass loops per channel (training mode)"},
              {"pool", "max pooling loop with argmax (the zoo does not record max vs average)"},
              {"relu", "loop"},
              {"lrn", "Caffe across-channel LRN with a sliding window"},
              {"softmax", "loop per sample"},
              {"dropout", "xorshift mask, ratio 0.5"},
              {"add", "loop; backward copies the gradient to both inputs"},
              {"concat", "memcpy of two halves"}}}};
  }

  // The layer's kernels over buffers of their own: time_layer times them, prepare_layer
  // hands them to a live run.
  std::unique_ptr<HostLayer> build(const Layer& l, int batch, bool needs_input_grad) const {
    auto h = std::make_unique<HostLayer>();
    HostLayer& k = *h;
    const i64 in_count = batch * l.in.elements(), out_count = batch * l.out.elements();
    switch (l.kind) {
      case LayerKind::conv: {
        const cpu::ConvGeom g = conv_geom(l, batch);
        float *x = k.floats(in_count, 1), *w = k.floats(l.weight_params, 2), *b = k.floats(g.k, 3);
        float *y = k.floats(out_count, 4), *dy = k.floats(out_count, 5),
              *dx = k.floats(in_count, 6);
        float *dw = k.floats(l.weight_params, 7), *db = k.floats(g.k, 8),
              *col = k.floats(g.col_size(), 9);
        float *bias = l.bias_params ? b : nullptr, *dbias = l.bias_params ? db : nullptr;
        const double flops = double(batch) * l.fwd_macs * 2;
        const std::string algo = g.direct() ? "gemm (1x1, input used directly)" : "im2col+gemm";
        k.add(
            k.fwd, "forward", algo, [=] { cpu::conv_forward(g, x, w, bias, y, col); }, flops);
        if (needs_input_grad)
          k.add(
              k.bwd, "backward_data", algo + " (col2im)",
              [=] { cpu::conv_backward_data(g, dy, w, dx, col); }, flops);
        k.add(
            k.bwd, "backward_filter", algo + (l.bias_params ? " + bias" : ""),
            [=] { cpu::conv_backward_filter(g, x, dy, dw, dbias, col); }, flops);
        break;
      }
      case LayerKind::fc: {
        const i64 mm = l.fc_m, nn = l.fc_n;
        float *x = k.floats(batch * nn, 1), *w = k.floats(mm * nn, 2), *b = k.floats(mm, 3);
        float *y = k.floats(batch * mm, 4), *dy = k.floats(batch * mm, 5),
              *dx = k.floats(batch * nn, 6);
        float *dw = k.floats(mm * nn, 7), *db = k.floats(mm, 8);
        float *bias = l.bias_params ? b : nullptr, *dbias = l.bias_params ? db : nullptr;
        const double flops = 2.0 * batch * double(mm) * double(nn);
        k.add(
            k.fwd, "forward", "gemm", [=] { cpu::fc_forward(batch, mm, nn, x, w, bias, y); },
            flops);
        if (needs_input_grad)
          k.add(
              k.bwd, "backward_data", "gemm",
              [=] { cpu::fc_backward_data(batch, mm, nn, dy, w, dx); }, flops);
        k.add(
            k.bwd, "backward_filter", std::string("gemm") + (l.bias_params ? " + bias" : ""),
            [=] { cpu::fc_backward_filter(batch, mm, nn, x, dy, dw, dbias); }, flops);
        break;
      }
      case LayerKind::bn: {
        const i64 c = l.in.c, hw = l.in.h * l.in.w;
        float *x = k.floats(in_count, 1), *y = k.floats(in_count, 2), *dy = k.floats(in_count, 3),
              *dx = k.floats(in_count, 4);
        float *gamma = k.floats(c, 5), *beta = k.floats(c, 6), *mean = k.floats(c, 7),
              *inv = k.floats(c, 8);
        float *dg = k.floats(c, 9), *dbt = k.floats(c, 10);
        k.add(k.fwd, "forward", "loops (training)",
              [=] { cpu::bn_forward(batch, c, hw, x, gamma, beta, y, mean, inv); });
        k.add(k.bwd, "backward", "loops",
              [=] { cpu::bn_backward(batch, c, hw, x, dy, gamma, mean, inv, dx, dg, dbt); });
        break;
      }
      case LayerKind::pool: {
        cpu::PoolGeom g;
        g.n = batch;
        g.c = l.in.c;
        g.h = l.in.h;
        g.w = l.in.w;
        g.ho = l.out.h;
        g.wo = l.out.w;
        g.k = std::max(1, l.kernel_h);
        g.stride = std::max(1, l.stride);
        g.pad = l.pad_h;
        float *x = k.floats(in_count, 1), *y = k.floats(out_count, 2), *dy = k.floats(out_count, 3),
              *dx = k.floats(in_count, 4);
        std::int32_t* arg = k.ints(out_count);
        k.add(k.fwd, "forward", "max pool loop", [=] { cpu::maxpool_forward(g, x, y, arg); });
        k.add(k.bwd, "backward", "max pool scatter",
              [=] { cpu::maxpool_backward(g, dy, arg, dx); });
        break;
      }
      case LayerKind::relu: {
        float *x = k.floats(out_count, 1), *y = k.floats(out_count, 2),
              *dy = k.floats(out_count, 3), *dx = k.floats(out_count, 4);
        k.add(k.fwd, "forward", "loop", [=] { cpu::relu_forward(out_count, x, y); });
        k.add(k.bwd, "backward", "loop", [=] { cpu::relu_backward(out_count, x, dy, dx); });
        break;
      }
      case LayerKind::lrn: {
        const i64 c = l.out.c, hw = l.out.h * l.out.w;
        const double per =
            l.out.elements() > 0 ? l.fwd_flops / (5.0 * double(l.out.elements())) : 5;
        const int size = std::max(1, int(std::lround(per)));
        float *x = k.floats(out_count, 1), *y = k.floats(out_count, 2),
              *sc = k.floats(out_count, 3);
        float *dy = k.floats(out_count, 4), *dx = k.floats(out_count, 5);
        k.add(k.fwd, "forward", "across-channel window " + std::to_string(size),
              [=] { cpu::lrn_forward(batch, c, hw, size, x, y, sc); });
        k.add(k.bwd, "backward", "across-channel window " + std::to_string(size),
              [=] { cpu::lrn_backward(batch, c, hw, size, x, y, sc, dy, dx); });
        break;
      }
      case LayerKind::softmax: {
        const i64 dim = l.out.elements();
        float *x = k.floats(out_count, 1), *y = k.floats(out_count, 2),
              *dy = k.floats(out_count, 3), *dx = k.floats(out_count, 4);
        k.add(k.fwd, "forward", "loop", [=] { cpu::softmax_forward(batch, dim, x, y); });
        k.add(k.bwd, "backward", "loop", [=] { cpu::softmax_backward(batch, dim, y, dy, dx); });
        break;
      }
      case LayerKind::dropout: {
        float *x = k.floats(out_count, 1), *y = k.floats(out_count, 2),
              *dy = k.floats(out_count, 3), *dx = k.floats(out_count, 4);
        std::uint8_t* mask = k.bytes_of(out_count);
        std::uint64_t* rng = k.state(12345);
        k.add(k.fwd, "forward", "xorshift mask",
              [=] { cpu::dropout_forward(out_count, x, y, mask, *rng); });
        k.add(k.bwd, "backward", "mask", [=] { cpu::dropout_backward(out_count, dy, mask, dx); });
        break;
      }
      case LayerKind::add: {
        float *a = k.floats(out_count, 1), *b = k.floats(out_count, 2), *y = k.floats(out_count, 3),
              *dy = k.floats(out_count, 4);
        float *da = k.floats(out_count, 5), *db = k.floats(out_count, 6);
        k.add(k.fwd, "forward", "loop", [=] { cpu::add_forward(out_count, a, b, y); });
        k.add(k.bwd, "backward", "two copies", [=] {
          std::memcpy(da, dy, std::size_t(out_count) * sizeof(float));
          std::memcpy(db, dy, std::size_t(out_count) * sizeof(float));
        });
        break;
      }
      case LayerKind::concat: {
        const i64 hw = l.out.h * l.out.w, ca = l.out.c / 2, cb = l.out.c - ca;
        float *a = k.floats(batch * ca * hw, 1), *b = k.floats(batch * cb * hw, 2),
              *y = k.floats(out_count, 3);
        float *dy = k.floats(out_count, 4), *da = k.floats(batch * ca * hw, 5),
              *db = k.floats(batch * cb * hw, 6);
        k.add(k.fwd, "forward", "memcpy of two parts",
              [=] { cpu::concat_forward(batch, ca * hw, cb * hw, a, b, y); });
        k.add(k.bwd, "backward", "memcpy of two parts",
              [=] { cpu::concat_backward(batch, ca * hw, cb * hw, dy, da, db); });
        break;
      }
    }
    return h;
  }

  LayerMeasurement time_layer(const Layer& l, int batch, bool needs_input_grad,
                              const TimingPolicy& p) override {
    const std::unique_ptr<HostLayer> k = build(l, batch, needs_input_grad);
    return measure_layer(l, k->fwd, k->bwd, [&](const Kernel& x) { return time_host(x.name, x.algorithm, p, x.run, x.flops); });
  }

  std::unique_ptr<PreparedLayer> prepare_layer(const Layer& l, int batch, bool needs_input_grad) override {
    return build(l, batch, needs_input_grad);
  }

  KernelTime time_rebuild(i64 m, i64 n, i64 k, const TimingPolicy& p) override {
    const std::unique_ptr<HostLayer> r = rebuild(m, n, k);
    const Kernel& g = r->fwd.front();
    return time_host(g.name, g.algorithm, p, g.run, g.flops);
  }

  std::unique_ptr<PreparedLayer> prepare_rebuild(i64 m, i64 n, i64 k) override { return rebuild(m, n, k); }

  // The SF rebuild's GEMM over buffers of its own.
  static std::unique_ptr<HostLayer> rebuild(i64 m, i64 n, i64 k) {
    auto h = std::make_unique<HostLayer>();
    float *u = h->floats(m * k, 1), *v = h->floats(k * n, 2), *g = h->floats(m * n, 3);
    h->add(h->fwd, "sf_rebuild", "gemm [m x k] x [k x n]", [=] { cpu::sf_rebuild(m, n, k, u, v, g); },
           2.0 * double(m) * double(n) * double(k));
    return h;
  }

  KernelTime time_device_copy(double bytes, const TimingPolicy& p) override {
    const std::size_t n = std::size_t(std::max(1.0, bytes));
    std::vector<char> a(n, 1), b(n, 2);
    return time_host("device_copy", "std::memcpy", p, [&] {
      std::memcpy(b.data(), a.data(), n);
      asm volatile("" : : "r"(b.data()) : "memory");  // keep the copy
    });
  }

  std::vector<CopyPoint> time_copies(const std::vector<double>& sizes,
                                     const TimingPolicy& p) override {
    std::vector<CopyPoint> out;
    for (double bytes : sizes) {
      const std::size_t n = std::size_t(std::max(1.0, bytes));
      std::vector<char> a(n, 1), b(n, 2);
      for (const char* dir : {"h2d", "d2h"}) {
        char* dst = dir[0] == 'h' ? b.data() : a.data();
        const char* src = dir[0] == 'h' ? a.data() : b.data();
        const KernelTime t = time_host("memcpy", "std::memcpy", p, [&] {
          std::memcpy(dst, src, n);
          asm volatile("" : : "r"(dst) : "memory");  // keep the copy
        });
        out.push_back(CopyPoint{dir, true, double(n), t.median_s});
      }
    }
    return out;
  }

 private:
  int threads_;
  std::string device_;
};

}  // namespace

std::unique_ptr<KernelBackend> make_cpu_backend(Precision precision, int threads) {
  if (precision != Precision::fp32)
    throw InputError("--precision",
                     std::string(to_string(precision)) + " is not available on the CPU backend",
                     "fp32 with --backend cpu");
  return std::make_unique<CpuBackend>(threads);
}

}  // namespace possim::calibrate
