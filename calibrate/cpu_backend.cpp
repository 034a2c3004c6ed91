#include "calibrate/cpu_backend.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "calibrate/cpu_kernels.hpp"
#include "calibrate/timing.hpp"
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

  LayerMeasurement time_layer(const Layer& l, int batch, bool needs_input_grad,
                              const TimingPolicy& p) override {
    LayerMeasurement m;
    m.layer = l.name;
    m.kind = l.kind;
    const i64 in_count = batch * l.in.elements(), out_count = batch * l.out.elements();
    switch (l.kind) {
      case LayerKind::conv: {
        const cpu::ConvGeom g = conv_geom(l, batch);
        auto x = filled(in_count, 1), w = filled(l.weight_params, 2), b = filled(g.k, 3);
        auto y = filled(out_count, 4), dy = filled(out_count, 5), dx = filled(in_count, 6);
        auto dw = filled(l.weight_params, 7), db = filled(g.k, 8), col = filled(g.col_size(), 9);
        const double flops = double(batch) * l.fwd_macs * 2;
        const std::string algo = g.direct() ? "gemm (1x1, input used directly)" : "im2col+gemm";
        m.forward.push_back(time_host(
            "forward", algo, p,
            [&] {
              cpu::conv_forward(g, x.data(), w.data(), l.bias_params ? b.data() : nullptr, y.data(),
                                col.data());
            },
            flops));
        if (needs_input_grad)
          m.backward.push_back(time_host(
              "backward_data", algo + " (col2im)", p,
              [&] { cpu::conv_backward_data(g, dy.data(), w.data(), dx.data(), col.data()); },
              flops));
        m.backward.push_back(time_host(
            "backward_filter", algo + (l.bias_params ? " + bias" : ""), p,
            [&] {
              cpu::conv_backward_filter(g, x.data(), dy.data(), dw.data(),
                                        l.bias_params ? db.data() : nullptr, col.data());
            },
            flops));
        break;
      }
      case LayerKind::fc: {
        const i64 mm = l.fc_m, nn = l.fc_n;
        auto x = filled(batch * nn, 1), w = filled(mm * nn, 2), b = filled(mm, 3);
        auto y = filled(batch * mm, 4), dy = filled(batch * mm, 5), dx = filled(batch * nn, 6);
        auto dw = filled(mm * nn, 7), db = filled(mm, 8);
        const double flops = 2.0 * batch * double(mm) * double(nn);
        m.forward.push_back(time_host(
            "forward", "gemm", p,
            [&] {
              cpu::fc_forward(batch, mm, nn, x.data(), w.data(), l.bias_params ? b.data() : nullptr,
                              y.data());
            },
            flops));
        if (needs_input_grad)
          m.backward.push_back(time_host(
              "backward_data", "gemm", p,
              [&] { cpu::fc_backward_data(batch, mm, nn, dy.data(), w.data(), dx.data()); },
              flops));
        m.backward.push_back(time_host(
            "backward_filter", std::string("gemm") + (l.bias_params ? " + bias" : ""), p,
            [&] {
              cpu::fc_backward_filter(batch, mm, nn, x.data(), dy.data(), dw.data(),
                                      l.bias_params ? db.data() : nullptr);
            },
            flops));
        break;
      }
      case LayerKind::bn: {
        const i64 c = l.in.c, hw = l.in.h * l.in.w;
        auto x = filled(in_count, 1), y = filled(in_count, 2), dy = filled(in_count, 3),
             dx = filled(in_count, 4);
        auto gamma = filled(c, 5), beta = filled(c, 6), mean = filled(c, 7), inv = filled(c, 8);
        auto dg = filled(c, 9), dbt = filled(c, 10);
        m.forward.push_back(time_host("forward", "loops (training)", p, [&] {
          cpu::bn_forward(batch, c, hw, x.data(), gamma.data(), beta.data(), y.data(), mean.data(),
                          inv.data());
        }));
        m.backward.push_back(time_host("backward", "loops", p, [&] {
          cpu::bn_backward(batch, c, hw, x.data(), dy.data(), gamma.data(), mean.data(), inv.data(),
                           dx.data(), dg.data(), dbt.data());
        }));
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
        auto x = filled(in_count, 1), y = filled(out_count, 2), dy = filled(out_count, 3),
             dx = filled(in_count, 4);
        std::vector<std::int32_t> arg(std::size_t(std::max<i64>(out_count, 1)));
        m.forward.push_back(time_host("forward", "max pool loop", p, [&] {
          cpu::maxpool_forward(g, x.data(), y.data(), arg.data());
        }));
        m.backward.push_back(time_host("backward", "max pool scatter", p, [&] {
          cpu::maxpool_backward(g, dy.data(), arg.data(), dx.data());
        }));
        break;
      }
      case LayerKind::relu: {
        auto x = filled(out_count, 1), y = filled(out_count, 2), dy = filled(out_count, 3),
             dx = filled(out_count, 4);
        m.forward.push_back(time_host("forward", "loop", p,
                                      [&] { cpu::relu_forward(out_count, x.data(), y.data()); }));
        m.backward.push_back(time_host("backward", "loop", p, [&] {
          cpu::relu_backward(out_count, x.data(), dy.data(), dx.data());
        }));
        break;
      }
      case LayerKind::lrn: {
        const i64 c = l.out.c, hw = l.out.h * l.out.w;
        const double per =
            l.out.elements() > 0 ? l.fwd_flops / (5.0 * double(l.out.elements())) : 5;
        const int size = std::max(1, int(std::lround(per)));
        auto x = filled(out_count, 1), y = filled(out_count, 2), sc = filled(out_count, 3);
        auto dy = filled(out_count, 4), dx = filled(out_count, 5);
        m.forward.push_back(time_host(
            "forward", "across-channel window " + std::to_string(size), p,
            [&] { cpu::lrn_forward(batch, c, hw, size, x.data(), y.data(), sc.data()); }));
        m.backward.push_back(
            time_host("backward", "across-channel window " + std::to_string(size), p, [&] {
              cpu::lrn_backward(batch, c, hw, size, x.data(), y.data(), sc.data(), dy.data(),
                                dx.data());
            }));
        break;
      }
      case LayerKind::softmax: {
        const i64 dim = l.out.elements();
        auto x = filled(out_count, 1), y = filled(out_count, 2), dy = filled(out_count, 3),
             dx = filled(out_count, 4);
        m.forward.push_back(time_host(
            "forward", "loop", p, [&] { cpu::softmax_forward(batch, dim, x.data(), y.data()); }));
        m.backward.push_back(time_host("backward", "loop", p, [&] {
          cpu::softmax_backward(batch, dim, y.data(), dy.data(), dx.data());
        }));
        break;
      }
      case LayerKind::dropout: {
        auto x = filled(out_count, 1), y = filled(out_count, 2), dy = filled(out_count, 3),
             dx = filled(out_count, 4);
        std::vector<std::uint8_t> mask(std::size_t(std::max<i64>(out_count, 1)));
        std::uint64_t rng = 12345;
        m.forward.push_back(time_host("forward", "xorshift mask", p, [&] {
          cpu::dropout_forward(out_count, x.data(), y.data(), mask.data(), rng);
        }));
        m.backward.push_back(time_host("backward", "mask", p, [&] {
          cpu::dropout_backward(out_count, dy.data(), mask.data(), dx.data());
        }));
        break;
      }
      case LayerKind::add: {
        auto a = filled(out_count, 1), b = filled(out_count, 2), y = filled(out_count, 3),
             dy = filled(out_count, 4);
        auto da = filled(out_count, 5), db = filled(out_count, 6);
        m.forward.push_back(time_host("forward", "loop", p, [&] {
          cpu::add_forward(out_count, a.data(), b.data(), y.data());
        }));
        m.backward.push_back(time_host("backward", "two copies", p, [&] {
          std::memcpy(da.data(), dy.data(), std::size_t(out_count) * sizeof(float));
          std::memcpy(db.data(), dy.data(), std::size_t(out_count) * sizeof(float));
        }));
        break;
      }
      case LayerKind::concat: {
        const i64 hw = l.out.h * l.out.w, ca = l.out.c / 2, cb = l.out.c - ca;
        auto a = filled(batch * ca * hw, 1), b = filled(batch * cb * hw, 2),
             y = filled(out_count, 3);
        auto dy = filled(out_count, 4), da = filled(batch * ca * hw, 5),
             db = filled(batch * cb * hw, 6);
        m.forward.push_back(time_host("forward", "memcpy of two parts", p, [&] {
          cpu::concat_forward(batch, ca * hw, cb * hw, a.data(), b.data(), y.data());
        }));
        m.backward.push_back(time_host("backward", "memcpy of two parts", p, [&] {
          cpu::concat_backward(batch, ca * hw, cb * hw, dy.data(), da.data(), db.data());
        }));
        break;
      }
    }
    return m;
  }

  KernelTime time_rebuild(i64 m, i64 n, i64 k, const TimingPolicy& p) override {
    auto u = filled(m * k, 1), v = filled(k * n, 2), g = filled(m * n, 3);
    return time_host(
        "sf_rebuild", "gemm [m x k] x [k x n]", p,
        [&] { cpu::sf_rebuild(m, n, k, u.data(), v.data(), g.data()); },
        2.0 * double(m) * double(n) * double(k));
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
