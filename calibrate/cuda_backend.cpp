// cuDNN 9 / cuBLAS timing. Built only with CUDA + cuDNN, as the plugin
// libpossim_cuda_backend.so (see calibrate/CMakeLists.txt and backend_factory.cpp).
// Uses cuDNN's legacy (deprecated but present in 9.x) descriptor API: it maps one-to-one
// onto the layers possim models, as Caffe's cuDNN layers did.
#include "calibrate/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "calibrate/timing.hpp"
#include "model/input/error.hpp"

namespace possim::calibrate {

namespace {

using i64 = std::int64_t;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
void check(cudnnStatus_t e, const char* what) {
  if (e != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(e));
}
void check(cublasStatus_t e, const char* what) {
  if (e != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(e)));
}
#define CK(expr) check((expr), #expr)

// Device memory, freed on scope exit.
class DevBuf {
 public:
  DevBuf() = default;
  explicit DevBuf(std::size_t bytes) : bytes_(std::max<std::size_t>(bytes, 16)) {
    const cudaError_t e = cudaMalloc(&p_, bytes_);
    if (e != cudaSuccess)
      throw std::runtime_error("cudaMalloc of " + std::to_string(bytes_) + " bytes failed (" +
                               cudaGetErrorString(e) + "): try a smaller --batch");
  }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  DevBuf(DevBuf&& o) noexcept : p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
  DevBuf& operator=(DevBuf&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~DevBuf() {
    if (p_) cudaFree(p_);
  }
  void* get() const { return p_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// RAII wrappers for cuDNN descriptors.
template <class T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
class Desc {
 public:
  Desc() { CK(Create(&d_)); }
  ~Desc() { Destroy(d_); }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  operator T() const { return d_; }

 private:
  T d_{};
};
using TensorDesc =
    Desc<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc =
    Desc<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvDesc = Desc<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor,
                      cudnnDestroyConvolutionDescriptor>;
using PoolDesc =
    Desc<cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor, cudnnDestroyPoolingDescriptor>;
using ActDesc = Desc<cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor,
                     cudnnDestroyActivationDescriptor>;
using LrnDesc = Desc<cudnnLRNDescriptor_t, cudnnCreateLRNDescriptor, cudnnDestroyLRNDescriptor>;
using DropDesc =
    Desc<cudnnDropoutDescriptor_t, cudnnCreateDropoutDescriptor, cudnnDestroyDropoutDescriptor>;

const char* fwd_algo_name(cudnnConvolutionFwdAlgo_t a) {
  static const char* n[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  return int(a) >= 0 && int(a) < 8 ? n[int(a)] : "?";
}
const char* bwd_data_algo_name(cudnnConvolutionBwdDataAlgo_t a) {
  static const char* n[] = {"ALGO_0",     "ALGO_1",   "FFT",
                            "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  return int(a) >= 0 && int(a) < 6 ? n[int(a)] : "?";
}
const char* bwd_filter_algo_name(cudnnConvolutionBwdFilterAlgo_t a) {
  static const char* n[] = {"ALGO_0",    "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED",
                            "FFT_TILING"};
  return int(a) >= 0 && int(a) < 7 ? n[int(a)] : "?";
}
const char* math_name(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_DEFAULT_MATH:
      return "default math";
    case CUDNN_TENSOR_OP_MATH:
      return "tensor-op math";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
      return "tensor-op math (conversion)";
    case CUDNN_FMA_MATH:
      return "FMA math";
  }
  return "?";
}

// float -> bfloat16 bits, round to nearest even.
std::uint16_t to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return std::uint16_t(u >> 16);
}

class CudaBackend : public KernelBackend {
 public:
  explicit CudaBackend(Precision precision) : precision_(precision) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
      throw BackendUnavailable(std::string("no CUDA device: use --backend cpu (") +
                               (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")");
    CK(cudaSetDevice(0));
    CK(cudaGetDeviceProperties(&prop_, 0));
    if (precision_ == Precision::tf32 && prop_.major < 8)
      throw InputError("--precision",
                       "tf32 needs an Ampere or newer GPU; " + std::string(prop_.name) +
                           " is compute capability " + std::to_string(prop_.major) + "." +
                           std::to_string(prop_.minor),
                       "fp32");
    CK(cudaStreamCreate(&stream_));
    CK(cudaEventCreate(&start_));
    CK(cudaEventCreate(&stop_));
    CK(cudnnCreate(&dnn_));
    CK(cudnnSetStream(dnn_, stream_));
    CK(cublasCreate(&blas_));
    CK(cublasSetStream(blas_, stream_));
    if (precision_ == Precision::tf32)
      CK(cublasSetMathMode(blas_, CUBLAS_TF32_TENSOR_OP_MATH));
    else if (precision_ == Precision::fp32)
      CK(cublasSetMathMode(blas_, CUBLAS_PEDANTIC_MATH));
    std::size_t free_b = 0, total_b = 0;
    CK(cudaMemGetInfo(&free_b, &total_b));
    workspace_limit_ = std::min<std::size_t>(free_b / 4, std::size_t(4) << 30);
  }
  ~CudaBackend() override {
    if (blas_) cublasDestroy(blas_);
    if (dnn_) cudnnDestroy(dnn_);
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "gpu"; }
  std::string device() const override { return std::string(prop_.name); }
  bool copies_cross_a_bus() const override { return true; }

  nlohmann::json describe() const override {
    int rt = 0, drv = 0, blas_v = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    cublasGetVersion(blas_, &blas_v);
    const auto ver = [](int v) {
      return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
    };
    const std::size_t dnn_v = cudnnGetVersion();
    return {
        {"backend", "gpu"},
        {"device", prop_.name},
        {"compute_capability", std::to_string(prop_.major) + "." + std::to_string(prop_.minor)},
        {"multiprocessors", prop_.multiProcessorCount},
        {"memory_bytes", double(prop_.totalGlobalMem)},
        {"cuda_runtime", ver(rt)},
        {"cuda_driver", ver(drv)},
        {"cudnn", std::to_string(dnn_v / 10000) + "." + std::to_string((dnn_v % 10000) / 100) +
                      "." + std::to_string(dnn_v % 100)},
        {"cublas", std::to_string(blas_v / 10000) + "." + std::to_string((blas_v % 10000) / 100) +
                       "." + std::to_string(blas_v % 100)},
        {"precision", to_string(precision_)},
        {"math", precision_ == Precision::fp32   ? "strict fp32 (cuDNN FMA math, cuBLAS pedantic)"
                 : precision_ == Precision::tf32 ? "TF32 tensor cores allowed"
                                                 : "bf16 tensors, fp32 accumulation"},
        {"timer",
         "CUDA events on one stream around each call, warm-up runs first, median of repeats"},
        {"conv_algorithms",
         "cudnnFind*Algorithm (cuDNN benchmarks its algorithms; the fastest that fits "
         "the workspace limit is used and recorded per layer)"},
        {"workspace_limit_bytes", double(workspace_limit_)}};
  }

  LayerMeasurement time_layer(const Layer& l, int batch, bool needs_input_grad,
                              const TimingPolicy& p) override {
    LayerMeasurement m;
    m.layer = l.name;
    m.kind = l.kind;
    switch (l.kind) {
      case LayerKind::conv:
        conv(l, batch, needs_input_grad, p, m);
        break;
      case LayerKind::fc:
        fc(l, batch, needs_input_grad, p, m);
        break;
      case LayerKind::bn:
        bn(l, batch, p, m);
        break;
      case LayerKind::pool:
        pool(l, batch, p, m);
        break;
      case LayerKind::relu:
        relu(l, batch, p, m);
        break;
      case LayerKind::lrn:
        lrn(l, batch, p, m);
        break;
      case LayerKind::softmax:
        softmax(l, batch, p, m);
        break;
      case LayerKind::dropout:
        dropout(l, batch, p, m);
        break;
      case LayerKind::add:
        add(l, batch, p, m);
        break;
      case LayerKind::concat:
        concat(l, batch, p, m);
        break;
    }
    return m;
  }

  KernelTime time_rebuild(i64 m, i64 n, i64 k, const TimingPolicy& p) override {
    DevBuf u = upload(m * k, 1), v = upload(k * n, 2), g = upload(m * n, 3);
    return time_gpu(
        "sf_rebuild", "cublasGemmEx [m x k] x [k x n]" + gemm_note(), p,
        [&] { gemm(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, u.get(), m, v.get(), k, g.get(), m, 0.0f); },
        2.0 * double(m) * double(n) * double(k));
  }

  std::vector<CopyPoint> time_copies(const std::vector<double>& sizes,
                                     const TimingPolicy& p) override {
    std::vector<CopyPoint> out;
    for (double bytes_d : sizes) {
      const std::size_t bytes = std::size_t(std::max(1.0, bytes_d));
      DevBuf dev(bytes);
      void* pinned = nullptr;
      CK(cudaMallocHost(&pinned, bytes));
      std::vector<char> pageable(bytes, 1);
      std::memset(pinned, 1, bytes);
      try {
        for (const bool is_pinned : {true, false}) {
          void* host = is_pinned ? pinned : pageable.data();
          const KernelTime h2d = time_gpu("h2d", "cudaMemcpyAsync", p, [&] {
            CK(cudaMemcpyAsync(dev.get(), host, bytes, cudaMemcpyHostToDevice, stream_));
          });
          const KernelTime d2h = time_gpu("d2h", "cudaMemcpyAsync", p, [&] {
            CK(cudaMemcpyAsync(host, dev.get(), bytes, cudaMemcpyDeviceToHost, stream_));
          });
          out.push_back(CopyPoint{"h2d", is_pinned, double(bytes), h2d.median_s});
          out.push_back(CopyPoint{"d2h", is_pinned, double(bytes), d2h.median_s});
        }
      } catch (...) {
        cudaFreeHost(pinned);
        throw;
      }
      cudaFreeHost(pinned);
    }
    return out;
  }

 private:
  cudnnDataType_t dtype() const {
    return precision_ == Precision::bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
  }
  cudaDataType blas_type() const {
    return precision_ == Precision::bf16 ? CUDA_R_16BF : CUDA_R_32F;
  }
  std::size_t esize() const { return precision_ == Precision::bf16 ? 2 : 4; }
  std::string gemm_note() const {
    return precision_ == Precision::fp32   ? " (fp32, pedantic)"
           : precision_ == Precision::tf32 ? " (TF32 tensor ops)"
                                           : " (bf16 in, fp32 accumulate)";
  }

  // A device buffer of `count` elements of the working type holding values in [-1, 1).
  DevBuf upload(i64 count, std::uint32_t seed) const {
    const std::size_t n = std::size_t(std::max<i64>(count, 1));
    DevBuf d(n * esize());
    std::vector<float> h(n);
    std::uint32_t s = seed * 2654435761u + 1u;
    for (float& x : h) {
      s = s * 1664525u + 1013904223u;
      x = float(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
    if (precision_ == Precision::bf16) {
      std::vector<std::uint16_t> b(n);
      for (std::size_t i = 0; i < n; ++i) b[i] = to_bf16(h[i]);
      CK(cudaMemcpy(d.get(), b.data(), n * 2, cudaMemcpyHostToDevice));
    } else {
      CK(cudaMemcpy(d.get(), h.data(), n * 4, cudaMemcpyHostToDevice));
    }
    return d;
  }
  // fp32 buffers (BatchNorm statistics and parameters are fp32 for every data type).
  DevBuf upload_f32(i64 count, std::uint32_t seed) const {
    const std::size_t n = std::size_t(std::max<i64>(count, 1));
    DevBuf d(n * 4);
    std::vector<float> h(n, 0.5f + 0.01f * float(seed));
    CK(cudaMemcpy(d.get(), h.data(), n * 4, cudaMemcpyHostToDevice));
    return d;
  }

  void set4d(cudnnTensorDescriptor_t d, i64 n, i64 c, i64 h, i64 w) const {
    CK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, dtype(), int(n), int(c), int(h), int(w)));
  }

  template <class F>
  KernelTime time_gpu(const std::string& kernel, const std::string& algo, const TimingPolicy& p,
                      F&& run, double flops = 0) {
    for (int i = 0; i < p.warmup; ++i) run();
    CK(cudaStreamSynchronize(stream_));
    std::vector<double> s;
    for (int i = 0; i < std::max(1, p.repeats); ++i) {
      CK(cudaEventRecord(start_, stream_));
      run();
      CK(cudaEventRecord(stop_, stream_));
      CK(cudaEventSynchronize(stop_));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, start_, stop_));
      s.push_back(double(ms) * 1e-3);
    }
    return summarize(kernel, std::move(s), algo, flops);
  }

  // Column-major C = op(A) op(B) (+ beta C), in the backend's precision.
  void gemm(cublasOperation_t ta, cublasOperation_t tb, i64 m, i64 n, i64 k, const void* a, i64 lda,
            const void* b, i64 ldb, void* c, i64 ldc, float beta) {
    const float alpha = 1.0f;
    const cublasComputeType_t ct =
        precision_ == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    CK(cublasGemmEx(blas_, ta, tb, int(m), int(n), int(k), &alpha, a, blas_type(), int(lda), b,
                    blas_type(), int(ldb), &beta, c, blas_type(), int(ldc), ct,
                    CUBLAS_GEMM_DEFAULT));
  }

  void conv(const Layer& l, int batch, bool needs_input_grad, const TimingPolicy& p,
            LayerMeasurement& m) {
    if (l.kernel_h < 1 || l.kernel_w < 1 || l.stride < 1 || l.groups < 1)
      throw InputError("layer '" + l.name + "'", "kernel/stride/groups",
                       "convolution geometry is missing", "kernel >= 1, stride >= 1, groups >= 1");
    TensorDesc x_d, y_d, b_d;
    FilterDesc w_d;
    ConvDesc c_d;
    set4d(x_d, batch, l.in.c, l.in.h, l.in.w);
    CK(cudnnSetFilter4dDescriptor(w_d, dtype(), CUDNN_TENSOR_NCHW, int(l.out.c),
                                  int(l.in.c / l.groups), l.kernel_h, l.kernel_w));
    CK(cudnnSetConvolution2dDescriptor(c_d, l.pad_h, l.pad_w, l.stride, l.stride, 1, 1,
                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CK(cudnnSetConvolutionGroupCount(c_d, l.groups));
    const cudnnMathType_t math = precision_ == Precision::fp32   ? CUDNN_FMA_MATH
                                 : precision_ == Precision::tf32 ? CUDNN_DEFAULT_MATH
                                                                 : CUDNN_TENSOR_OP_MATH;
    CK(cudnnSetConvolutionMathType(c_d, math));
    int n = 0, c = 0, h = 0, w = 0;
    CK(cudnnGetConvolution2dForwardOutputDim(c_d, x_d, w_d, &n, &c, &h, &w));
    if (c != l.out.c || h != l.out.h || w != l.out.w)
      throw InputError("layer '" + l.name + "'", "out",
                       "output size does not follow from input, kernel, stride and pad",
                       std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w));
    set4d(y_d, batch, c, h, w);
    set4d(b_d, 1, c, 1, 1);

    DevBuf x = upload(batch * l.in.elements(), 1), wt = upload(l.weight_params, 2),
           bias = upload(c, 3);
    DevBuf y = upload(i64(batch) * c * h * w, 4), dy = upload(i64(batch) * c * h * w, 5);
    DevBuf dx = upload(batch * l.in.elements(), 6), dw = upload(l.weight_params, 7),
           db = upload(c, 8);
    const double flops = double(batch) * l.fwd_macs * 2;
    const float one = 1.0f, zero = 0.0f;

    // Forward: the algorithm cuDNN's benchmark finds fastest within the workspace limit.
    cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int got = 0;
    CK(cudnnFindConvolutionForwardAlgorithm(dnn_, x_d, w_d, c_d, y_d,
                                            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, fp));
    const auto* f = pick(fp, got);
    if (!f) throw std::runtime_error("layer '" + l.name + "': cuDNN found no forward algorithm");
    DevBuf fws(f->memory);
    m.forward.push_back(time_gpu(
        "forward",
        std::string("cudnn ") + fwd_algo_name(f->algo) + ", " + math_name(f->mathType) +
            ", workspace " + std::to_string(f->memory) + " B",
        p,
        [&] {
          CK(cudnnConvolutionForward(dnn_, &one, x_d, x.get(), w_d, wt.get(), c_d, f->algo,
                                     fws.get(), f->memory, &zero, y_d, y.get()));
          if (l.bias_params) CK(cudnnAddTensor(dnn_, &one, b_d, bias.get(), &one, y_d, y.get()));
        },
        flops));

    if (needs_input_grad) {
      cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      CK(cudnnFindConvolutionBackwardDataAlgorithm(
          dnn_, w_d, y_d, c_d, x_d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, dp));
      const auto* d = pick(dp, got);
      if (!d)
        throw std::runtime_error("layer '" + l.name + "': cuDNN found no backward-data algorithm");
      DevBuf dws(d->memory);
      m.backward.push_back(time_gpu(
          "backward_data",
          std::string("cudnn ") + bwd_data_algo_name(d->algo) + ", " + math_name(d->mathType) +
              ", workspace " + std::to_string(d->memory) + " B",
          p,
          [&] {
            CK(cudnnConvolutionBackwardData(dnn_, &one, w_d, wt.get(), y_d, dy.get(), c_d, d->algo,
                                            dws.get(), d->memory, &zero, x_d, dx.get()));
          },
          flops));
    }
    cudnnConvolutionBwdFilterAlgoPerf_t wp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CK(cudnnFindConvolutionBackwardFilterAlgorithm(
        dnn_, x_d, y_d, c_d, w_d, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, wp));
    const auto* bw = pick(wp, got);
    if (!bw)
      throw std::runtime_error("layer '" + l.name + "': cuDNN found no backward-filter algorithm");
    DevBuf wws(bw->memory);
    m.backward.push_back(time_gpu(
        "backward_filter",
        std::string("cudnn ") + bwd_filter_algo_name(bw->algo) + ", " + math_name(bw->mathType) +
            ", workspace " + std::to_string(bw->memory) + " B" +
            (l.bias_params ? " + cudnnConvolutionBackwardBias" : ""),
        p,
        [&] {
          CK(cudnnConvolutionBackwardFilter(dnn_, &one, x_d, x.get(), y_d, dy.get(), c_d, bw->algo,
                                            wws.get(), bw->memory, &zero, w_d, dw.get()));
          if (l.bias_params)
            CK(cudnnConvolutionBackwardBias(dnn_, &one, y_d, dy.get(), &zero, b_d, db.get()));
        },
        flops));
  }

  // First successful result within the workspace limit (cuDNN sorts them fastest first).
  template <class Perf>
  const Perf* pick(const Perf* perf, int n) const {
    for (int i = 0; i < n; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= workspace_limit_)
        return &perf[i];
    return nullptr;
  }

  void fc(const Layer& l, int batch, bool needs_input_grad, const TimingPolicy& p,
          LayerMeasurement& m) {
    const i64 mm = l.fc_m, nn = l.fc_n, n = batch;
    DevBuf x = upload(n * nn, 1), w = upload(mm * nn, 2), b = upload(mm, 3), y = upload(n * mm, 4);
    DevBuf dy = upload(n * mm, 5), dx = upload(n * nn, 6), dw = upload(mm * nn, 7),
           db = upload(mm, 8);
    TensorDesc y_d, b_d;
    set4d(y_d, n, mm, 1, 1);
    set4d(b_d, 1, mm, 1, 1);
    const float one = 1.0f, zero = 0.0f;
    const double flops = 2.0 * double(n) * double(mm) * double(nn);
    // Row-major y[n x m] = x[n x in] w[m x in]^T is column-major y^T = w^T(col) x(col).
    m.forward.push_back(time_gpu(
        "forward", "cublasGemmEx" + gemm_note() + (l.bias_params ? " + cudnnAddTensor" : ""), p,
        [&] {
          gemm(CUBLAS_OP_T, CUBLAS_OP_N, mm, n, nn, w.get(), nn, x.get(), nn, y.get(), mm, 0.0f);
          if (l.bias_params) CK(cudnnAddTensor(dnn_, &one, b_d, b.get(), &one, y_d, y.get()));
        },
        flops));
    if (needs_input_grad)
      m.backward.push_back(time_gpu(
          "backward_data", "cublasGemmEx" + gemm_note(), p,
          [&] {
            gemm(CUBLAS_OP_N, CUBLAS_OP_N, nn, n, mm, w.get(), nn, dy.get(), mm, dx.get(), nn,
                 0.0f);
          },
          flops));
    m.backward.push_back(time_gpu(
        "backward_filter",
        "cublasGemmEx" + gemm_note() + (l.bias_params ? " + cudnnConvolutionBackwardBias" : ""), p,
        [&] {
          gemm(CUBLAS_OP_N, CUBLAS_OP_T, nn, mm, n, x.get(), nn, dy.get(), mm, dw.get(), nn, 0.0f);
          if (l.bias_params)
            CK(cudnnConvolutionBackwardBias(dnn_, &one, y_d, dy.get(), &zero, b_d, db.get()));
        },
        flops));
  }

  void bn(const Layer& l, int batch, const TimingPolicy& p, LayerMeasurement& m) {
    TensorDesc x_d, s_d;
    set4d(x_d, batch, l.in.c, l.in.h, l.in.w);
    CK(cudnnDeriveBNTensorDescriptor(s_d, x_d, CUDNN_BATCHNORM_SPATIAL));
    const i64 count = batch * l.in.elements(), c = l.in.c;
    DevBuf x = upload(count, 1), y = upload(count, 2), dy = upload(count, 3), dx = upload(count, 4);
    DevBuf gamma = upload_f32(c, 5), beta = upload_f32(c, 6), rm = upload_f32(c, 7),
           rv = upload_f32(c, 8);
    DevBuf sm = upload_f32(c, 9), siv = upload_f32(c, 10), dg = upload_f32(c, 11),
           dbt = upload_f32(c, 12);
    const float one = 1.0f, zero = 0.0f;
    m.forward.push_back(
        time_gpu("forward", "cudnnBatchNormalizationForwardTraining (spatial)", p, [&] {
          CK(cudnnBatchNormalizationForwardTraining(
              dnn_, CUDNN_BATCHNORM_SPATIAL, &one, &zero, x_d, x.get(), x_d, y.get(), s_d,
              gamma.get(), beta.get(), 0.1, rm.get(), rv.get(), 1e-5, sm.get(), siv.get()));
        }));
    m.backward.push_back(time_gpu("backward", "cudnnBatchNormalizationBackward (spatial)", p, [&] {
      CK(cudnnBatchNormalizationBackward(
          dnn_, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, x_d, x.get(), x_d, dy.get(), x_d,
          dx.get(), s_d, gamma.get(), dg.get(), dbt.get(), 1e-5, sm.get(), siv.get()));
    }));
  }

  void pool(const Layer& l, int batch, const TimingPolicy& p, LayerMeasurement& m) {
    PoolDesc pd;
    const int k = std::max(1, l.kernel_h), s = std::max(1, l.stride);
    CK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, k, k, l.pad_h,
                                   l.pad_w, s, s));
    TensorDesc x_d, y_d;
    set4d(x_d, batch, l.in.c, l.in.h, l.in.w);
    int n = 0, c = 0, h = 0, w = 0;
    CK(cudnnGetPooling2dForwardOutputDim(pd, x_d, &n, &c, &h, &w));
    set4d(y_d, n, c, h, w);  // cuDNN rounds down; Caffe's ceil mode may add a row/column
    const i64 in_count = batch * l.in.elements(), out_count = i64(n) * c * h * w;
    DevBuf x = upload(in_count, 1), y = upload(out_count, 2), dy = upload(out_count, 3),
           dx = upload(in_count, 4);
    const float one = 1.0f, zero = 0.0f;
    const std::string algo =
        "cudnn max pooling, output " + std::to_string(h) + "x" + std::to_string(w) +
        (h != l.out.h || w != l.out.w ? " (model: " + std::to_string(l.out.h) + "x" +
                                            std::to_string(l.out.w) + ", Caffe ceil rounding)"
                                      : "");
    m.forward.push_back(time_gpu("forward", algo, p, [&] {
      CK(cudnnPoolingForward(dnn_, pd, &one, x_d, x.get(), &zero, y_d, y.get()));
    }));
    m.backward.push_back(time_gpu("backward", algo, p, [&] {
      CK(cudnnPoolingBackward(dnn_, pd, &one, y_d, y.get(), y_d, dy.get(), x_d, x.get(), &zero, x_d,
                              dx.get()));
    }));
  }

  void relu(const Layer& l, int batch, const TimingPolicy& p, LayerMeasurement& m) {
    ActDesc ad;
    CK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    TensorDesc d;
    set4d(d, batch, l.out.c, l.out.h, l.out.w);
    const i64 count = batch * l.out.elements();
    DevBuf x = upload(count, 1), y = upload(count, 2), dy = upload(count, 3), dx = upload(count, 4);
    const float one = 1.0f, zero = 0.0f;
    m.forward.push_back(time_gpu("forward", "cudnnActivationForward (relu)", p, [&] {
      CK(cudnnActivationForward(dnn_, ad, &one, d, x.get(), &zero, d, y.get()));
    }));
    m.backward.push_back(time_gpu("backward", "cudnnActivationBackward (relu)", p, [&] {
      CK(cudnnActivationBackward(dnn_, ad, &one, d, y.get(), d, dy.get(), d, x.get(), &zero, d,
                                 dx.get()));
    }));
  }

  void lrn(const Layer& l, int batch, const TimingPolicy& p, LayerMeasurement& m) {
    const double per = l.out.elements() > 0 ? l.fwd_flops / (5.0 * double(l.out.elements())) : 5;
    const unsigned size =
        unsigned(std::clamp(int(std::lround(per)), CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N));
    LrnDesc ld;
    CK(cudnnSetLRNDescriptor(ld, size, 1e-4, 0.75, 1.0));
    TensorDesc d;
    set4d(d, batch, l.out.c, l.out.h, l.out.w);
    const i64 count = batch * l.out.elements();
    DevBuf x = upload(count, 1), y = upload(count, 2), dy = upload(count, 3), dx = upload(count, 4);
    const float one = 1.0f, zero = 0.0f;
    const std::string algo = "cudnnLRNCrossChannel, size " + std::to_string(size);
    m.forward.push_back(time_gpu("forward", algo, p, [&] {
      CK(cudnnLRNCrossChannelForward(dnn_, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, d, x.get(),
                                     &zero, d, y.get()));
    }));
    m.backward.push_back(time_gpu("backward", algo, p, [&] {
      CK(cudnnLRNCrossChannelBackward(dnn_, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one, d, y.get(), d,
                                      dy.get(), d, x.get(), &zero, d, dx.get()));
    }));
  }

  void softmax(const Layer& l, int batch, const TimingPolicy& p, LayerMeasurement& m) {
    TensorDesc d;
    set4d(d, batch, l.out.elements(), 1, 1);
    const i64 count = batch * l.out.elements();
    DevBuf x = upload(count, 1), y = upload(count, 2), dy = upload(count, 3), dx = upload(count, 4);
    const float one = 1.0f, zero = 0.0f;
    m.forward.push_back(time_gpu("forward", "cudnnSoftmaxForward (accurate, instance)", p, [&] {
      CK(cudnnSoftmaxForward(dnn_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, d,
                             x.get(), &zero, d, y.get()));
    }));
    m.backward.push_back(time_gpu("backward", "cudnnSoftmaxBackward (accurate, instance)", p, [&] {
      CK(cudnnSoftmaxBackward(dnn_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, d,
                              y.get(), d, dy.get(), &zero, d, dx.get()));
    }));
  }

  void dropout(const Layer& l, int batch, const TimingPolicy& p, LayerMeasurement& m) {
    TensorDesc d;
    set4d(d, batch, l.out.c, l.out.h, l.out.w);
    std::size_t states_b = 0, reserve_b = 0;
    CK(cudnnDropoutGetStatesSize(dnn_, &states_b));
    CK(cudnnDropoutGetReserveSpaceSize(d, &reserve_b));
    DevBuf states(states_b), reserve(reserve_b);
    DropDesc dd;
    CK(cudnnSetDropoutDescriptor(dd, dnn_, 0.5f, states.get(), states_b, 1234ull));
    const i64 count = batch * l.out.elements();
    DevBuf x = upload(count, 1), y = upload(count, 2), dy = upload(count, 3), dx = upload(count, 4);
    m.forward.push_back(time_gpu("forward", "cudnnDropoutForward (0.5)", p, [&] {
      CK(cudnnDropoutForward(dnn_, dd, d, x.get(), d, y.get(), reserve.get(), reserve_b));
    }));
    m.backward.push_back(time_gpu("backward", "cudnnDropoutBackward (0.5)", p, [&] {
      CK(cudnnDropoutBackward(dnn_, dd, d, dy.get(), d, dx.get(), reserve.get(), reserve_b));
    }));
  }

  void add(const Layer& l, int batch, const TimingPolicy& p, LayerMeasurement& m) {
    TensorDesc d;
    set4d(d, batch, l.out.c, l.out.h, l.out.w);
    const i64 count = batch * l.out.elements();
    DevBuf a = upload(count, 1), y = upload(count, 2), dy = upload(count, 3), da = upload(count, 4),
           db = upload(count, 5);
    const float one = 1.0f;
    const std::size_t bytes = std::size_t(count) * esize();
    m.forward.push_back(time_gpu("forward", "cudnnAddTensor", p, [&] {
      CK(cudnnAddTensor(dnn_, &one, d, a.get(), &one, d, y.get()));
    }));
    m.backward.push_back(time_gpu("backward", "two device-to-device copies", p, [&] {
      CK(cudaMemcpyAsync(da.get(), dy.get(), bytes, cudaMemcpyDeviceToDevice, stream_));
      CK(cudaMemcpyAsync(db.get(), dy.get(), bytes, cudaMemcpyDeviceToDevice, stream_));
    }));
  }

  void concat(const Layer& l, int batch, const TimingPolicy& p, LayerMeasurement& m) {
    const i64 hw = l.out.h * l.out.w, ca = l.out.c / 2, cb = l.out.c - ca;
    const std::size_t ea = std::size_t(ca * hw) * esize(), eb = std::size_t(cb * hw) * esize();
    DevBuf a = upload(batch * ca * hw, 1), b = upload(batch * cb * hw, 2),
           y = upload(batch * l.out.elements(), 3);
    const auto copy_parts = [&](bool forward) {
      char* yy = static_cast<char*>(y.get());
      if (forward) {
        CK(cudaMemcpy2DAsync(yy, ea + eb, a.get(), ea, ea, std::size_t(batch),
                             cudaMemcpyDeviceToDevice, stream_));
        CK(cudaMemcpy2DAsync(yy + ea, ea + eb, b.get(), eb, eb, std::size_t(batch),
                             cudaMemcpyDeviceToDevice, stream_));
      } else {
        CK(cudaMemcpy2DAsync(a.get(), ea, yy, ea + eb, ea, std::size_t(batch),
                             cudaMemcpyDeviceToDevice, stream_));
        CK(cudaMemcpy2DAsync(b.get(), eb, yy + ea, ea + eb, eb, std::size_t(batch),
                             cudaMemcpyDeviceToDevice, stream_));
      }
    };
    m.forward.push_back(
        time_gpu("forward", "cudaMemcpy2DAsync of two parts", p, [&] { copy_parts(true); }));
    m.backward.push_back(
        time_gpu("backward", "cudaMemcpy2DAsync of two parts", p, [&] { copy_parts(false); }));
  }

  Precision precision_;
  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  cudnnHandle_t dnn_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  std::size_t workspace_limit_ = 0;
};

}  // namespace

}  // namespace possim::calibrate

extern "C" possim::calibrate::KernelBackend* possim_make_cuda_backend(
    possim::calibrate::Precision precision) {
  return new possim::calibrate::CudaBackend(precision);
}
