// The kernel backends (kernels/): CPU kernels against naive loops on tiny inputs, gradients
// against finite differences, the CPU backend's timings, and the GPU backend's message
// where it cannot run. The profile calibrate writes from them: calibrate/test_calibrate_kernels.cpp.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <set>

#include "kernels/cpu_kernels.hpp"
#include "kernels/cuda_backend.hpp"
#include "kernels/kernel_backend.hpp"
#include "model/input/error.hpp"
#include "model/workload/zoo.hpp"

using namespace possim;
using namespace possim::calibrate;
using Approx = Catch::Detail::Approx;

namespace {

std::vector<float> random_vec(std::size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(g);
  return v;
}

void check_close(const std::vector<float>& a, const std::vector<float>& b, double tol) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("index " << i);
    CHECK(a[i] == Approx(b[i]).margin(tol).epsilon(tol));
  }
}

// Naive direct convolution (cross-correlation, as Caffe/cuDNN).
void naive_conv(const cpu::ConvGeom& g, const std::vector<float>& x, const std::vector<float>& w,
                const std::vector<float>& b, std::vector<float>& y) {
  const auto cg = g.c / g.groups, kg = g.k / g.groups;
  y.assign(std::size_t(g.n * g.k * g.ho * g.wo), 0);
  for (cpu::i64 n = 0; n < g.n; ++n)
    for (cpu::i64 o = 0; o < g.k; ++o) {
      const auto grp = o / kg;
      for (cpu::i64 oy = 0; oy < g.ho; ++oy)
        for (cpu::i64 ox = 0; ox < g.wo; ++ox) {
          double s = b.empty() ? 0 : b[std::size_t(o)];
          for (cpu::i64 ci = 0; ci < cg; ++ci)
            for (int i = 0; i < g.kh; ++i)
              for (int j = 0; j < g.kw; ++j) {
                const auto iy = oy * g.stride - g.pad_h + i, ix = ox * g.stride - g.pad_w + j;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                s += double(w[std::size_t(((o * cg + ci) * g.kh + i) * g.kw + j)]) *
                     x[std::size_t(((n * g.c + grp * cg + ci) * g.h + iy) * g.w + ix)];
              }
          y[std::size_t(((n * g.k + o) * g.ho + oy) * g.wo + ox)] = float(s);
        }
    }
}

// Adjoints of the naive convolution: dx and dw for a given dy.
void naive_conv_grads(const cpu::ConvGeom& g, const std::vector<float>& x,
                      const std::vector<float>& w, const std::vector<float>& dy,
                      std::vector<float>& dx, std::vector<float>& dw, std::vector<float>& db) {
  const auto cg = g.c / g.groups, kg = g.k / g.groups;
  dx.assign(x.size(), 0);
  dw.assign(w.size(), 0);
  db.assign(std::size_t(g.k), 0);
  for (cpu::i64 n = 0; n < g.n; ++n)
    for (cpu::i64 o = 0; o < g.k; ++o) {
      const auto grp = o / kg;
      for (cpu::i64 oy = 0; oy < g.ho; ++oy)
        for (cpu::i64 ox = 0; ox < g.wo; ++ox) {
          const float d = dy[std::size_t(((n * g.k + o) * g.ho + oy) * g.wo + ox)];
          db[std::size_t(o)] += d;
          for (cpu::i64 ci = 0; ci < cg; ++ci)
            for (int i = 0; i < g.kh; ++i)
              for (int j = 0; j < g.kw; ++j) {
                const auto iy = oy * g.stride - g.pad_h + i, ix = ox * g.stride - g.pad_w + j;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                const auto xi = std::size_t(((n * g.c + grp * cg + ci) * g.h + iy) * g.w + ix);
                const auto wi = std::size_t(((o * cg + ci) * g.kh + i) * g.kw + j);
                dx[xi] += w[wi] * d;
                dw[wi] += x[xi] * d;
              }
        }
    }
}

cpu::ConvGeom geom(cpu::i64 n, cpu::i64 c, cpu::i64 h, cpu::i64 w, cpu::i64 k, int kh, int kw,
                   int stride, int pad_h, int pad_w, int groups) {
  cpu::ConvGeom g;
  g.n = n, g.c = c, g.h = h, g.w = w, g.k = k, g.kh = kh, g.kw = kw, g.stride = stride;
  g.pad_h = pad_h, g.pad_w = pad_w, g.groups = groups;
  g.ho = (h + 2 * pad_h - kh) / stride + 1;
  g.wo = (w + 2 * pad_w - kw) / stride + 1;
  return g;
}

}  // namespace

TEST_CASE("convolution kernels match a naive loop", "[calibrate]") {
  // Padding, stride 2, two groups, rectangular kernels, and the direct 1x1 path.
  const std::vector<cpu::ConvGeom> cases = {
      geom(2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1), geom(2, 4, 9, 9, 6, 3, 3, 2, 1, 1, 2),
      geom(1, 2, 5, 8, 3, 1, 3, 1, 0, 1, 1), geom(3, 6, 4, 4, 8, 1, 1, 1, 0, 0, 2),
      geom(1, 3, 11, 11, 5, 5, 5, 4, 2, 2, 1)};
  for (const cpu::ConvGeom& g : cases) {
    INFO("c " << g.c << " k " << g.k << " kernel " << g.kh << "x" << g.kw << " stride " << g.stride
              << " groups " << g.groups);
    const auto x = random_vec(std::size_t(g.n * g.c * g.h * g.w), 1);
    const auto w = random_vec(std::size_t(g.k * (g.c / g.groups) * g.kh * g.kw), 2);
    const auto b = random_vec(std::size_t(g.k), 3);
    const auto dy = random_vec(std::size_t(g.n * g.k * g.ho * g.wo), 4);
    std::vector<float> col(std::size_t(std::max<cpu::i64>(g.col_size(), 1)));

    std::vector<float> y(dy.size()), want_y;
    cpu::conv_forward(g, x.data(), w.data(), b.data(), y.data(), col.data());
    naive_conv(g, x, w, b, want_y);
    check_close(y, want_y, 1e-4);

    std::vector<float> dx(x.size(), 7.0f), dw(w.size(), 7.0f), db(b.size(), 7.0f), want_dx, want_dw,
        want_db;
    cpu::conv_backward_data(g, dy.data(), w.data(), dx.data(), col.data());
    cpu::conv_backward_filter(g, x.data(), dy.data(), dw.data(), db.data(), col.data());
    naive_conv_grads(g, x, w, dy, want_dx, want_dw, want_db);
    check_close(dx, want_dx, 1e-4);
    check_close(dw, want_dw, 1e-4);
    check_close(db, want_db, 1e-4);
  }
}

TEST_CASE("FC GEMMs and the SF rebuild match naive loops", "[calibrate]") {
  const cpu::i64 n = 5, m = 7, in = 11;
  const auto x = random_vec(std::size_t(n * in), 1), w = random_vec(std::size_t(m * in), 2),
             b = random_vec(std::size_t(m), 3), dy = random_vec(std::size_t(n * m), 4);
  std::vector<float> y(std::size_t(n * m)), dx(std::size_t(n * in)), dw(std::size_t(m * in)),
      db(static_cast<std::size_t>(m));
  cpu::fc_forward(n, m, in, x.data(), w.data(), b.data(), y.data());
  cpu::fc_backward_data(n, m, in, dy.data(), w.data(), dx.data());
  cpu::fc_backward_filter(n, m, in, x.data(), dy.data(), dw.data(), db.data());
  for (cpu::i64 r = 0; r < n; ++r)
    for (cpu::i64 o = 0; o < m; ++o) {
      double s = b[std::size_t(o)];
      for (cpu::i64 i = 0; i < in; ++i)
        s += double(x[std::size_t(r * in + i)]) * w[std::size_t(o * in + i)];
      CHECK(y[std::size_t(r * m + o)] == Approx(s).margin(1e-5));
    }
  for (cpu::i64 r = 0; r < n; ++r)
    for (cpu::i64 i = 0; i < in; ++i) {
      double s = 0;
      for (cpu::i64 o = 0; o < m; ++o)
        s += double(dy[std::size_t(r * m + o)]) * w[std::size_t(o * in + i)];
      CHECK(dx[std::size_t(r * in + i)] == Approx(s).margin(1e-5));
    }
  for (cpu::i64 o = 0; o < m; ++o) {
    double sb = 0;
    for (cpu::i64 r = 0; r < n; ++r) sb += dy[std::size_t(r * m + o)];
    CHECK(db[std::size_t(o)] == Approx(sb).margin(1e-5));
    for (cpu::i64 i = 0; i < in; ++i) {
      double s = 0;
      for (cpu::i64 r = 0; r < n; ++r)
        s += double(dy[std::size_t(r * m + o)]) * x[std::size_t(r * in + i)];
      CHECK(dw[std::size_t(o * in + i)] == Approx(s).margin(1e-5));
    }
  }
  // grad W = sum_k u_k v_k^T: the rebuild of K sufficient-factor pairs.
  const cpu::i64 K = 4, M = 6, N = 9;
  const auto u = random_vec(std::size_t(M * K), 5), v = random_vec(std::size_t(K * N), 6);
  std::vector<float> grad(std::size_t(M * N));
  cpu::sf_rebuild(M, N, K, u.data(), v.data(), grad.data());
  for (cpu::i64 i = 0; i < M; ++i)
    for (cpu::i64 j = 0; j < N; ++j) {
      double s = 0;
      for (cpu::i64 k = 0; k < K; ++k)
        s += double(u[std::size_t(i * K + k)]) * v[std::size_t(k * N + j)];
      CHECK(grad[std::size_t(i * N + j)] == Approx(s).margin(1e-5));
    }
}

TEST_CASE("max pooling matches a naive loop, clipped windows included", "[calibrate]") {
  cpu::PoolGeom g;
  g.n = 2, g.c = 3, g.h = 7, g.w = 7, g.k = 3, g.stride = 2, g.pad = 0;
  g.ho = 4, g.wo = 4;  // Caffe's ceil rounding: the last window hangs over the border
  const auto x = random_vec(std::size_t(g.n * g.c * g.h * g.w), 9);
  std::vector<float> y(std::size_t(g.n * g.c * g.ho * g.wo));
  std::vector<std::int32_t> arg(y.size());
  cpu::maxpool_forward(g, x.data(), y.data(), arg.data());
  for (cpu::i64 p = 0; p < g.n * g.c; ++p)
    for (cpu::i64 oy = 0; oy < g.ho; ++oy)
      for (cpu::i64 ox = 0; ox < g.wo; ++ox) {
        float best = -1e30f;
        for (cpu::i64 iy = oy * 2; iy < std::min<cpu::i64>(oy * 2 + 3, g.h); ++iy)
          for (cpu::i64 ix = ox * 2; ix < std::min<cpu::i64>(ox * 2 + 3, g.w); ++ix)
            best = std::max(best, x[std::size_t((p * g.h + iy) * g.w + ix)]);
        CHECK(y[std::size_t((p * g.ho + oy) * g.wo + ox)] == best);
      }
  const auto dy = random_vec(y.size(), 10);
  std::vector<float> dx(x.size(), 5.0f);
  cpu::maxpool_backward(g, dy.data(), arg.data(), dx.data());
  double sum_dx = 0, sum_dy = 0;
  for (float v : dx) sum_dx += v;
  for (float v : dy) sum_dy += v;
  CHECK(sum_dx == Approx(sum_dy).margin(1e-4));  // every output gradient lands on one input
}

TEST_CASE("BatchNorm, LRN and softmax backward passes match finite differences", "[calibrate]") {
  const cpu::i64 n = 2, c = 6, hw = 5, count = n * c * hw;
  auto x = random_vec(std::size_t(count), 21);
  const auto wgt = random_vec(std::size_t(count), 22);  // loss = sum(wgt * y), so dy = wgt
  // Each pass: forward into y; loss; analytic dx from backward(dy = wgt).
  const auto check_pass =
      [&](const std::function<void(const std::vector<float>&, std::vector<float>&)>& fwd,
          const std::vector<float>& dx, double tol) {
        const auto loss = [&](const std::vector<float>& in) {
          std::vector<float> y(in.size());
          fwd(in, y);
          double s = 0;
          for (std::size_t i = 0; i < y.size(); ++i) s += double(wgt[i]) * y[i];
          return s;
        };
        for (std::size_t i = 0; i < x.size(); i += 7) {
          auto a = x, b = x;
          const float h = 1e-2f;
          a[i] += h;
          b[i] -= h;
          const double numeric = (loss(a) - loss(b)) / (2 * h);
          INFO("element " << i);
          CHECK(dx[i] == Approx(numeric).margin(tol).epsilon(tol));
        }
      };
  SECTION("batchnorm") {
    const auto gamma = random_vec(std::size_t(c), 23), beta = random_vec(std::size_t(c), 24);
    std::vector<float> y(x.size()), mean(static_cast<std::size_t>(c)),
        inv(static_cast<std::size_t>(c)), dx(x.size()), dg(static_cast<std::size_t>(c)),
        dbt(static_cast<std::size_t>(c));
    cpu::bn_forward(n, c, hw, x.data(), gamma.data(), beta.data(), y.data(), mean.data(),
                    inv.data());
    cpu::bn_backward(n, c, hw, x.data(), wgt.data(), gamma.data(), mean.data(), inv.data(),
                     dx.data(), dg.data(), dbt.data());
    check_pass(
        [&](const std::vector<float>& in, std::vector<float>& out) {
          std::vector<float> m(static_cast<std::size_t>(c)), s(static_cast<std::size_t>(c));
          cpu::bn_forward(n, c, hw, in.data(), gamma.data(), beta.data(), out.data(), m.data(),
                          s.data());
        },
        dx, 2e-2);
  }
  SECTION("lrn") {
    for (auto& v : x) v *= 30;  // large enough that the normalization matters
    std::vector<float> y(x.size()), scale(x.size()), dx(x.size());
    cpu::lrn_forward(n, c, hw, 5, x.data(), y.data(), scale.data());
    cpu::lrn_backward(n, c, hw, 5, x.data(), y.data(), scale.data(), wgt.data(), dx.data());
    check_pass(
        [&](const std::vector<float>& in, std::vector<float>& out) {
          std::vector<float> s(in.size());
          cpu::lrn_forward(n, c, hw, 5, in.data(), out.data(), s.data());
        },
        dx, 2e-2);
  }
  SECTION("softmax") {
    std::vector<float> y(x.size()), dx(x.size());
    cpu::softmax_forward(n, c * hw, x.data(), y.data());
    double total = 0;
    for (cpu::i64 i = 0; i < c * hw; ++i) total += y[std::size_t(i)];
    CHECK(total == Approx(1.0).epsilon(1e-5));
    cpu::softmax_backward(n, c * hw, y.data(), wgt.data(), dx.data());
    check_pass(
        [&](const std::vector<float>& in, std::vector<float>& out) {
          cpu::softmax_forward(n, c * hw, in.data(), out.data());
        },
        dx, 2e-2);
  }
}

TEST_CASE("CPU backend times every layer kind with positive, finite seconds", "[calibrate]") {
  auto backend = make_backend("cpu", Precision::fp32, 1);
  REQUIRE(backend->name() == "cpu");
  CHECK_FALSE(backend->device().empty());
  CHECK(backend->describe().at("library").get<std::string>().rfind("Eigen", 0) == 0);
  TimingPolicy p;
  p.warmup = 0;
  p.repeats = 3;
  std::set<LayerKind> seen;
  for (const char* model : {"cifar10_quick", "alexnet", "googlenet", "resnet50"}) {
    const Network net = make_zoo_network(model);
    for (const Layer& l : net.layers) {
      if (seen.count(l.kind)) continue;
      seen.insert(l.kind);
      const LayerMeasurement m = backend->time_layer(l, 2, true, p);
      INFO(model << " " << l.name);
      REQUIRE_FALSE(m.forward.empty());
      REQUIRE_FALSE(m.backward.empty());
      for (const auto* ks : {&m.forward, &m.backward})
        for (const KernelTime& k : *ks) {
          CHECK(std::isfinite(k.median_s));
          CHECK(k.median_s > 0);
          CHECK(k.min_s <= k.median_s);
          CHECK(k.median_s <= k.max_s);
          CHECK(k.repeats == 3);
        }
    }
  }
  CHECK(seen.size() == 10);  // every LayerKind the zoo uses
  // The first layer with parameters computes no data gradient: one backward kernel fewer.
  const Network net = make_zoo_network("cifar10_quick");
  CHECK(backend->time_layer(net.layers[0], 2, false, p).backward.size() == 1);
  CHECK(backend->time_layer(net.layers[0], 2, true, p).backward.size() == 2);
  const KernelTime r = backend->time_rebuild(64, 128, 8, p);
  CHECK(r.median_s > 0);
  CHECK(r.flops == 2.0 * 64 * 128 * 8);
  const auto copies = backend->time_copies({4096, 1 << 20}, p);
  REQUIRE(copies.size() == 4);
  for (const auto& c : copies) CHECK(c.bytes_per_s() > 0);
  CHECK_FALSE(backend->copies_cross_a_bus());
}

TEST_CASE("CPU backend refuses tf32 and bf16, and bad geometry names the layer", "[calibrate]") {
  CHECK_THROWS_AS(make_backend("cpu", Precision::tf32, 1), InputError);
  CHECK_THROWS_AS(make_backend("tpu", Precision::fp32, 1), InputError);
  CHECK_THROWS_AS(precision_from_string("fp16"), InputError);
  auto backend = make_backend("cpu", Precision::fp32, 1);
  Layer l = make_zoo_network("cifar10_quick").layers[0];
  l.kernel_h = 0;
  try {
    backend->time_layer(l, 1, true, TimingPolicy{0, 1});
    FAIL("no error for a conv without a kernel");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("conv1") != std::string::npos);
  }
}

TEST_CASE("GPU backend request without a usable device gives one clear message", "[calibrate]") {
  try {
    auto b = make_backend("gpu", Precision::fp32, 1);
    // A machine with a GPU: the backend exists and says which device it drives.
    CHECK(gpu_backend_built());
    CHECK(b->name() == "gpu");
    CHECK_FALSE(b->device().empty());
    CHECK(b->copies_cross_a_bus());
  } catch (const BackendUnavailable& e) {
    const std::string what = e.what();
    if (gpu_backend_built())
      CHECK(what.rfind("no CUDA device: use --backend cpu", 0) == 0);
    else
      CHECK(what.rfind("GPU backend not built: CUDA/cuDNN not found at configure time", 0) == 0);
    CHECK(what.find('\n') == std::string::npos);
  }
}

TEST_CASE("a GPU backend plugin that cannot be loaded gives one line with dlopen's reason",
          "[calibrate]") {
  const std::string missing = "/nonexistent/libpossim_cuda_backend.so";
  try {
    load_cuda_backend_plugin(missing, Precision::fp32);
    FAIL("no BackendUnavailable for " << missing);
  } catch (const BackendUnavailable& e) {
    const std::string what = e.what();
    CHECK(what.rfind("GPU backend plugin cannot be loaded: ", 0) == 0);
    CHECK(what.find(missing) != std::string::npos);  // dlerror names the file
    CHECK(what.find('\n') == std::string::npos);
  }
  // A library that loads but is not the plugin: no factory to call.
  try {
    load_cuda_backend_plugin("libm.so.6", Precision::fp32);
    FAIL("no BackendUnavailable for libm");
  } catch (const BackendUnavailable& e) {
    const std::string what = e.what();
    CHECK(what.find("has no possim_make_cuda_backend") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
}
