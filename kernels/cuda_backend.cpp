// cuDNN 9 / cuBLAS timing. Built only with CUDA + cuDNN, as the plugin
// libpossim_cuda_backend.so (see kernels/CMakeLists.txt and backend_factory.cpp).
// Uses cuDNN's legacy (deprecated but present in 9.x) descriptor API: it maps one-to-one
// onto the layers possim models, as Caffe's cuDNN layers did.
#include "kernels/cuda_backend.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/timing.hpp"
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
  using handle_type = T;
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

// cuDNN's alpha/beta scaling factors, by address: static so that the kernels' lambdas can
// take it whenever they run.
constexpr float kOne = 1.0f, kZero = 0.0f;

class CudaBackend;

// A layer's kernels and all they use: device buffers, workspaces and descriptors (the
// chosen algorithms are copied into the kernels' lambdas). The lambdas capture handles and
// device pointers by value, and what those name is owned here, so it lives exactly as long
// as the kernels. The stream and the cuDNN/cuBLAS handles are the backend's: it must
// outlive the layer, and since all its layers share them, one thread at a time may run
// any of one backend's layers (or time_layer).
class GpuLayer final : public PreparedLayer {
 public:
  explicit GpuLayer(const CudaBackend* backend) : backend_(backend) {}
  ~GpuLayer() override;
  GpuLayer(const GpuLayer&) = delete;
  GpuLayer& operator=(const GpuLayer&) = delete;

  void forward() override { run(fwd); }
  void backward() override { run(bwd); }
  void launch_forward() override { launch(fwd); }
  void launch_backward() override { launch(bwd); }
  double bytes() const override {
    double b = 0;
    for (const DevBuf& d : bufs_) b += double(d.bytes());
    return b;
  }

  // Keeps a buffer; returns its device pointer (stable: moving a DevBuf keeps it).
  void* hold(DevBuf b) {
    bufs_.push_back(std::move(b));
    return bufs_.back().get();
  }
  // A new descriptor this layer keeps; returns its handle.
  template <class D>
  typename D::handle_type make() {
    auto d = std::make_shared<D>();
    descs_.push_back(d);
    return *d;
  }

  std::vector<Kernel> fwd, bwd;  // in launch order

 private:
  void run(const std::vector<Kernel>& kernels);     // launched, then waited for
  void launch(const std::vector<Kernel>& kernels);  // launched only

  const CudaBackend* backend_;
  std::vector<DevBuf> bufs_;
  // Declared after bufs_ so destroyed before it: the dropout descriptor points into a buffer.
  std::vector<std::shared_ptr<const void>> descs_;
};

class CudaBackend : public KernelBackend {
 public:
  CudaBackend(Precision precision, int device) : precision_(precision), device_(device) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
      throw BackendUnavailable(std::string("no CUDA device: use --backend cpu (") +
                               (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")");
    if (device < 0 || device >= count)
      throw BackendUnavailable("no CUDA device " + std::to_string(device) + ": this machine has " +
                               std::to_string(count) + (count == 1 ? " device" : " devices") +
                               " (indices 0-" + std::to_string(count - 1) + ")");
    CK(cudaSetDevice(device_));
    CK(cudaGetDeviceProperties(&prop_, device_));
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
    cudaSetDevice(device_);  // the caller's thread may have another device current
    if (blas_) cublasDestroy(blas_);
    if (dnn_) cudnnDestroy(dnn_);
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
    for (cudaEvent_t e : marks_) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::string name() const override { return "gpu"; }
  std::string device() const override { return std::string(prop_.name); }
  bool copies_cross_a_bus() const override { return true; }
  int device_index() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  void synchronize() override {
    CK(cudaSetDevice(device_));
    CK(cudaStreamSynchronize(stream_));
  }
  // An event per mark, recorded on the stream behind the work launched so far; kept for the
  // next step's marks.
  void mark() override {
    CK(cudaSetDevice(device_));
    if (marks_used_ == marks_.size()) {
      cudaEvent_t e = nullptr;
      CK(cudaEventCreate(&e));
      marks_.push_back(e);
    }
    CK(cudaEventRecord(marks_[marks_used_++], stream_));
  }
  std::vector<double> marked_intervals_s() override {
    CK(cudaSetDevice(device_));
    std::vector<double> out;
    if (marks_used_ > 0) CK(cudaEventSynchronize(marks_[marks_used_ - 1]));
    for (std::size_t i = 1; i < marks_used_; ++i) {
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, marks_[i - 1], marks_[i]));
      out.push_back(double(ms) * 1e-3);
    }
    marks_used_ = 0;
    return out;
  }

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
        {"device_index", device_},
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

  // Times exactly the kernels prepare_layer would run, one at a time, in launch order.
  LayerMeasurement time_layer(const Layer& l, int batch, bool needs_input_grad,
                              const TimingPolicy& p) override {
    const std::unique_ptr<GpuLayer> prepared = build(l, batch, needs_input_grad);
    return measure_layer(l, prepared->fwd, prepared->bwd, [&](const Kernel& k) {
      return time_gpu(k.name, k.algorithm, p, k.run, k.flops);
    });
  }

  std::unique_ptr<PreparedLayer> prepare_layer(const Layer& l, int batch,
                                               bool needs_input_grad) override {
    return build(l, batch, needs_input_grad);
  }

  KernelTime time_rebuild(i64 m, i64 n, i64 k, const TimingPolicy& p) override {
    const std::unique_ptr<GpuLayer> r = rebuild(m, n, k);
    const Kernel& g = r->fwd.front();
    return time_gpu(g.name, g.algorithm, p, g.run, g.flops);
  }

  std::unique_ptr<PreparedLayer> prepare_rebuild(i64 m, i64 n, i64 k) override {
    return rebuild(m, n, k);
  }

  KernelTime time_device_copy(double bytes_d, const TimingPolicy& p) override {
    CK(cudaSetDevice(device_));
    const std::size_t bytes = std::size_t(std::max(1.0, bytes_d));
    const DevBuf src = upload(i64(bytes / esize()) + 1, 7), dst(bytes);
    return time_gpu("device_copy", "cudaMemcpyAsync device to device", p, [&] {
      CK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream_));
    });
  }

  std::vector<CopyPoint> time_copies(const std::vector<double>& sizes,
                                     const TimingPolicy& p) override {
    CK(cudaSetDevice(device_));
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
  DevBuf upload(i64 count, std::uint32_t seed, bool f32 = false) const {
    const std::size_t n = std::size_t(std::max<i64>(count, 1));
    DevBuf d(n * (f32 ? 4 : esize()));
    std::vector<float> h(n);
    std::uint32_t s = seed * 2654435761u + 1u;
    for (float& x : h) {
      s = s * 1664525u + 1013904223u;
      x = float(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
    if (precision_ == Precision::bf16 && !f32) {
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

  void set4d(cudnnTensorDescriptor_t d, i64 n, i64 c, i64 h, i64 w, bool f32 = false) const {
    CK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, f32 ? CUDNN_DATA_FLOAT : dtype(), int(n), int(c), int(h),
                                  int(w)));
  }
  // cuDNN 9.19 has no bf16 LRN or dropout kernel (CUDNN_STATUS_NOT_SUPPORTED on an H200): a
  // bf16 run times those layers on fp32 tensors of the same shape, and its algorithm says so
  // (memory-bound: a bf16 kernel of a framework would move half the bytes).
  bool fp32_stand_in() const { return precision_ == Precision::bf16; }
  std::string stand_in_note() const {
    return fp32_stand_in() ? " [fp32 tensors: cuDNN has no bf16 kernel]" : "";
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
            const void* b, i64 ldb, void* c, i64 ldc, float beta) const {
    const float alpha = 1.0f;
    const cublasComputeType_t ct =
        precision_ == Precision::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    CK(cublasGemmEx(blas_, ta, tb, int(m), int(n), int(k), &alpha, a, blas_type(), int(lda), b,
                    blas_type(), int(ldb), &beta, c, blas_type(), int(ldc), ct,
                    CUBLAS_GEMM_DEFAULT));
  }

  // dB = dY summed over the batch and the pixels. cuDNN has no bf16 cudnnConvolutionBackwardBias
  // (CUDNN_STATUS_NOT_SUPPORTED: cuDNN 9.19 on an H200), so in bf16 the same sum is GEMMs
  // against a vector, as frameworks do it: over the pixels into `partial` [n x c], then over
  // the batch. `vec` holds at least max(hw, n) elements (random, like every input here).
  struct BiasGrad {
    cudnnTensorDescriptor_t y_d, b_d;
    const void* dy;
    void* db;
    i64 n, c, hw;
    const void* vec;
    void* partial;
  };
  BiasGrad bias_grad_for(GpuLayer& L, cudnnTensorDescriptor_t y_d, const void* dy,
                         cudnnTensorDescriptor_t b_d, void* db, i64 n, i64 c, i64 hw) {
    BiasGrad g{y_d, b_d, dy, db, n, c, hw, nullptr, nullptr};
    if (precision_ == Precision::bf16) {
      g.vec = L.hold(upload(std::max(hw, n), 9));
      if (hw > 1) g.partial = L.hold(upload(n * c, 10));
    }
    return g;
  }
  void bias_grad(const BiasGrad& g) const {
    if (precision_ != Precision::bf16) {
      CK(cudnnConvolutionBackwardBias(dnn_, &kOne, g.y_d, g.dy, &kZero, g.b_d, g.db));
      return;
    }
    const void* per_image = g.dy;
    if (g.hw > 1) {
      gemm(CUBLAS_OP_T, CUBLAS_OP_N, g.c * g.n, 1, g.hw, g.dy, g.hw, g.vec, g.hw, g.partial, g.c * g.n, 0.0f);
      per_image = g.partial;
    }
    gemm(CUBLAS_OP_N, CUBLAS_OP_N, g.c, 1, g.n, per_image, g.c, g.vec, g.n, g.db, g.c, 0.0f);
  }
  std::string bias_grad_note() const {
    return precision_ == Precision::bf16 ? " + bias gradient as cublasGemmEx sums (no bf16 cudnnConvolutionBackwardBias)"
                                         : " + cudnnConvolutionBackwardBias";
  }

  // The layer's buffers, descriptors and algorithms, and its kernels. The builders below
  // allocate and choose everything up front; their lambdas capture ([=]) only values: this
  // backend, handles and device pointers the layer holds, sizes and flags.
  // The SF rebuild's GEMM over buffers of its own.
  std::unique_ptr<GpuLayer> rebuild(i64 m, i64 n, i64 k) {
    CK(cudaSetDevice(device_));
    auto prepared = std::make_unique<GpuLayer>(this);
    GpuLayer& L = *prepared;
    void* const u = L.hold(upload(m * k, 1));
    void* const v = L.hold(upload(k * n, 2));
    void* const g = L.hold(upload(m * n, 3));
    L.fwd.push_back({"sf_rebuild", "cublasGemmEx [m x k] x [k x n]" + gemm_note(),
                     2.0 * double(m) * double(n) * double(k),
                     [=] { gemm(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, u, m, v, k, g, m, 0.0f); }});
    return prepared;
  }

  std::unique_ptr<GpuLayer> build(const Layer& l, int batch, bool needs_input_grad) {
    CK(cudaSetDevice(device_));  // allocations and cuDNN's find run on the calling thread
    auto prepared = std::make_unique<GpuLayer>(this);
    GpuLayer& L = *prepared;
    switch (l.kind) {
      case LayerKind::conv:
        conv(l, batch, needs_input_grad, L);
        break;
      case LayerKind::fc:
        fc(l, batch, needs_input_grad, L);
        break;
      case LayerKind::bn:
        bn(l, batch, L);
        break;
      case LayerKind::pool:
        pool(l, batch, L);
        break;
      case LayerKind::relu:
        relu(l, batch, L);
        break;
      case LayerKind::lrn:
        lrn(l, batch, L);
        break;
      case LayerKind::softmax:
        softmax(l, batch, L);
        break;
      case LayerKind::dropout:
        dropout(l, batch, L);
        break;
      case LayerKind::add:
        add(l, batch, L);
        break;
      case LayerKind::concat:
        concat(l, batch, L);
        break;
    }
    return prepared;
  }

  // One workspace for every convolution kernel of this backend, as Caffe shares one: its
  // stream runs one kernel at a time, so the largest any needs suffices (a workspace per
  // prepared layer would hold up to 3 x the limit per convolution). Grown only while layers
  // are prepared or timed, never during a run (every kernel's need is met by then).
  void* workspace(std::size_t bytes) {
    if (ws_.bytes() < bytes) {
      CK(cudaStreamSynchronize(stream_));
      ws_ = DevBuf();  // the old one freed before the new one is allocated
      ws_ = DevBuf(bytes);
    }
    return ws_.get();
  }

  void conv(const Layer& l, int batch, bool needs_input_grad, GpuLayer& L) {
    if (l.kernel_h < 1 || l.kernel_w < 1 || l.stride < 1 || l.groups < 1)
      throw InputError("layer '" + l.name + "'", "kernel/stride/groups",
                       "convolution geometry is missing", "kernel >= 1, stride >= 1, groups >= 1");
    const auto x_d = L.make<TensorDesc>(), y_d = L.make<TensorDesc>(), b_d = L.make<TensorDesc>();
    const auto w_d = L.make<FilterDesc>();
    const auto c_d = L.make<ConvDesc>();
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

    void* const x = L.hold(upload(batch * l.in.elements(), 1));
    void* const wt = L.hold(upload(l.weight_params, 2));
    void* const bias = L.hold(upload(c, 3));
    void* const y = L.hold(upload(i64(batch) * c * h * w, 4));
    void* const dy = L.hold(upload(i64(batch) * c * h * w, 5));
    void* const dx = L.hold(upload(batch * l.in.elements(), 6));
    void* const dw = L.hold(upload(l.weight_params, 7));
    void* const db = L.hold(upload(c, 8));
    const bool has_bias = l.bias_params != 0;
    const double flops = double(batch) * l.fwd_macs * 2;

    // Forward: the algorithm cuDNN's benchmark finds fastest within the workspace limit.
    cudnnConvolutionFwdAlgoPerf_t fp[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int got = 0;
    CK(cudnnFindConvolutionForwardAlgorithm(dnn_, x_d, w_d, c_d, y_d,
                                            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &got, fp));
    const auto f = pick(fp, got);
    if (!f) throw std::runtime_error("layer '" + l.name + "': cuDNN found no forward algorithm");
    workspace(f->memory);
    L.fwd.push_back({"forward",
                     std::string("cudnn ") + fwd_algo_name(f->algo) + ", " +
                         math_name(f->mathType) + ", workspace " + std::to_string(f->memory) + " B",
                     flops, [=, f_perf = *f] {
                       CK(cudnnConvolutionForward(dnn_, &kOne, x_d, x, w_d, wt, c_d, f_perf.algo,
                                                  workspace(f_perf.memory), f_perf.memory, &kZero,
                                                  y_d, y));
                       if (has_bias) CK(cudnnAddTensor(dnn_, &kOne, b_d, bias, &kOne, y_d, y));
                     }});

    if (needs_input_grad) {
      cudnnConvolutionBwdDataAlgoPerf_t dp[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      CK(cudnnFindConvolutionBackwardDataAlgorithm(
          dnn_, w_d, y_d, c_d, x_d, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &got, dp));
      const auto d = pick(dp, got);
      if (!d)
        throw std::runtime_error("layer '" + l.name + "': cuDNN found no backward-data algorithm");
      workspace(d->memory);
      L.bwd.push_back(
          {"backward_data",
           std::string("cudnn ") + bwd_data_algo_name(d->algo) + ", " + math_name(d->mathType) +
               ", workspace " + std::to_string(d->memory) + " B",
           flops, [=, d_perf = *d] {
             CK(cudnnConvolutionBackwardData(dnn_, &kOne, w_d, wt, y_d, dy, c_d, d_perf.algo,
                                             workspace(d_perf.memory), d_perf.memory, &kZero, x_d,
                                             dx));
           }});
    }
    const BiasGrad bgrad = has_bias ? bias_grad_for(L, y_d, dy, b_d, db, batch, c, i64(h) * w) : BiasGrad{};
    cudnnConvolutionBwdFilterAlgoPerf_t wp[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    CK(cudnnFindConvolutionBackwardFilterAlgorithm(
        dnn_, x_d, y_d, c_d, w_d, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &got, wp));
    const auto bw = pick(wp, got);
    if (!bw)
      throw std::runtime_error("layer '" + l.name + "': cuDNN found no backward-filter algorithm");
    workspace(bw->memory);
    L.bwd.push_back({"backward_filter",
                     std::string("cudnn ") + bwd_filter_algo_name(bw->algo) + ", " +
                         math_name(bw->mathType) + ", workspace " + std::to_string(bw->memory) +
                         " B" + (has_bias ? bias_grad_note() : ""),
                     flops, [=, bw_perf = *bw] {
                       CK(cudnnConvolutionBackwardFilter(dnn_, &kOne, x_d, x, y_d, dy, c_d,
                                                         bw_perf.algo, workspace(bw_perf.memory),
                                                         bw_perf.memory, &kZero,
                                                         w_d, dw));
                       if (has_bias) bias_grad(bgrad);
                     }});
  }

  // First successful result within the workspace limit (cuDNN sorts them fastest first),
  // copied out of the caller's array.
  template <class Perf>
  std::optional<Perf> pick(const Perf* perf, int n) const {
    for (int i = 0; i < n; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= workspace_limit_)
        return perf[i];
    return std::nullopt;
  }

  void fc(const Layer& l, int batch, bool needs_input_grad, GpuLayer& L) {
    const i64 mm = l.fc_m, nn = l.fc_n, n = batch;
    void* const x = L.hold(upload(n * nn, 1));
    void* const w = L.hold(upload(mm * nn, 2));
    void* const b = L.hold(upload(mm, 3));
    void* const y = L.hold(upload(n * mm, 4));
    void* const dy = L.hold(upload(n * mm, 5));
    void* const dx = L.hold(upload(n * nn, 6));
    void* const dw = L.hold(upload(mm * nn, 7));
    void* const db = L.hold(upload(mm, 8));
    const auto y_d = L.make<TensorDesc>(), b_d = L.make<TensorDesc>();
    set4d(y_d, n, mm, 1, 1);
    set4d(b_d, 1, mm, 1, 1);
    const bool has_bias = l.bias_params != 0;
    const double flops = 2.0 * double(n) * double(mm) * double(nn);
    // Row-major y[n x m] = x[n x in] w[m x in]^T is column-major y^T = w^T(col) x(col).
    L.fwd.push_back({"forward",
                     "cublasGemmEx" + gemm_note() + (has_bias ? " + cudnnAddTensor" : ""), flops,
                     [=] {
                       gemm(CUBLAS_OP_T, CUBLAS_OP_N, mm, n, nn, w, nn, x, nn, y, mm, 0.0f);
                       if (has_bias) CK(cudnnAddTensor(dnn_, &kOne, b_d, b, &kOne, y_d, y));
                     }});
    if (needs_input_grad)
      L.bwd.push_back({"backward_data", "cublasGemmEx" + gemm_note(), flops, [=] {
                         gemm(CUBLAS_OP_N, CUBLAS_OP_N, nn, n, mm, w, nn, dy, mm, dx, nn, 0.0f);
                       }});
    const BiasGrad bgrad = has_bias ? bias_grad_for(L, y_d, dy, b_d, db, n, mm, 1) : BiasGrad{};
    L.bwd.push_back(
        {"backward_filter",
         "cublasGemmEx" + gemm_note() + (has_bias ? bias_grad_note() : ""), flops,
         [=] {
           gemm(CUBLAS_OP_N, CUBLAS_OP_T, nn, mm, n, x, nn, dy, mm, dw, nn, 0.0f);
           if (has_bias) bias_grad(bgrad);
         }});
  }

  void bn(const Layer& l, int batch, GpuLayer& L) {
    const auto x_d = L.make<TensorDesc>(), s_d = L.make<TensorDesc>();
    set4d(x_d, batch, l.in.c, l.in.h, l.in.w);
    CK(cudnnDeriveBNTensorDescriptor(s_d, x_d, CUDNN_BATCHNORM_SPATIAL));
    const i64 count = batch * l.in.elements(), c = l.in.c;
    void* const x = L.hold(upload(count, 1));
    void* const y = L.hold(upload(count, 2));
    void* const dy = L.hold(upload(count, 3));
    void* const dx = L.hold(upload(count, 4));
    void* const gamma = L.hold(upload_f32(c, 5));
    void* const beta = L.hold(upload_f32(c, 6));
    void* const rm = L.hold(upload_f32(c, 7));
    void* const rv = L.hold(upload_f32(c, 8));
    void* const sm = L.hold(upload_f32(c, 9));
    void* const siv = L.hold(upload_f32(c, 10));
    void* const dg = L.hold(upload_f32(c, 11));
    void* const dbt = L.hold(upload_f32(c, 12));
    L.fwd.push_back({"forward", "cudnnBatchNormalizationForwardTraining (spatial)", 0, [=] {
                       CK(cudnnBatchNormalizationForwardTraining(
                           dnn_, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, x_d, x, x_d, y, s_d, gamma,
                           beta, 0.1, rm, rv, 1e-5, sm, siv));
                     }});
    L.bwd.push_back({"backward", "cudnnBatchNormalizationBackward (spatial)", 0, [=] {
                       CK(cudnnBatchNormalizationBackward(
                           dnn_, CUDNN_BATCHNORM_SPATIAL, &kOne, &kZero, &kOne, &kZero, x_d, x, x_d,
                           dy, x_d, dx, s_d, gamma, dg, dbt, 1e-5, sm, siv));
                     }});
  }

  void pool(const Layer& l, int batch, GpuLayer& L) {
    const auto pd = L.make<PoolDesc>();
    const int k = std::max(1, l.kernel_h), s = std::max(1, l.stride);
    CK(cudnnSetPooling2dDescriptor(pd, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, k, k, l.pad_h,
                                   l.pad_w, s, s));
    const auto x_d = L.make<TensorDesc>(), y_d = L.make<TensorDesc>();
    set4d(x_d, batch, l.in.c, l.in.h, l.in.w);
    int n = 0, c = 0, h = 0, w = 0;
    CK(cudnnGetPooling2dForwardOutputDim(pd, x_d, &n, &c, &h, &w));
    set4d(y_d, n, c, h, w);  // cuDNN rounds down; Caffe's ceil mode may add a row/column
    const i64 in_count = batch * l.in.elements(), out_count = i64(n) * c * h * w;
    void* const x = L.hold(upload(in_count, 1));
    void* const y = L.hold(upload(out_count, 2));
    void* const dy = L.hold(upload(out_count, 3));
    void* const dx = L.hold(upload(in_count, 4));
    const std::string algo =
        "cudnn max pooling, output " + std::to_string(h) + "x" + std::to_string(w) +
        (h != l.out.h || w != l.out.w ? " (model: " + std::to_string(l.out.h) + "x" +
                                            std::to_string(l.out.w) + ", Caffe ceil rounding)"
                                      : "");
    L.fwd.push_back({"forward", algo, 0,
                     [=] { CK(cudnnPoolingForward(dnn_, pd, &kOne, x_d, x, &kZero, y_d, y)); }});
    L.bwd.push_back(
        {"backward", algo, 0, [=] {
           CK(cudnnPoolingBackward(dnn_, pd, &kOne, y_d, y, y_d, dy, x_d, x, &kZero, x_d, dx));
         }});
  }

  void relu(const Layer& l, int batch, GpuLayer& L) {
    const auto ad = L.make<ActDesc>();
    CK(cudnnSetActivationDescriptor(ad, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    const auto d = L.make<TensorDesc>();
    set4d(d, batch, l.out.c, l.out.h, l.out.w);
    const i64 count = batch * l.out.elements();
    void* const x = L.hold(upload(count, 1));
    void* const y = L.hold(upload(count, 2));
    void* const dy = L.hold(upload(count, 3));
    void* const dx = L.hold(upload(count, 4));
    L.fwd.push_back({"forward", "cudnnActivationForward (relu)", 0,
                     [=] { CK(cudnnActivationForward(dnn_, ad, &kOne, d, x, &kZero, d, y)); }});
    L.bwd.push_back(
        {"backward", "cudnnActivationBackward (relu)", 0,
         [=] { CK(cudnnActivationBackward(dnn_, ad, &kOne, d, y, d, dy, d, x, &kZero, d, dx)); }});
  }

  void lrn(const Layer& l, int batch, GpuLayer& L) {
    const double per = l.out.elements() > 0 ? l.fwd_flops / (5.0 * double(l.out.elements())) : 5;
    const unsigned size =
        unsigned(std::clamp(int(std::lround(per)), CUDNN_LRN_MIN_N, CUDNN_LRN_MAX_N));
    const auto ld = L.make<LrnDesc>();
    CK(cudnnSetLRNDescriptor(ld, size, 1e-4, 0.75, 1.0));
    const auto d = L.make<TensorDesc>();
    const bool f32 = fp32_stand_in();
    set4d(d, batch, l.out.c, l.out.h, l.out.w, f32);
    const i64 count = batch * l.out.elements();
    void* const x = L.hold(upload(count, 1, f32));
    void* const y = L.hold(upload(count, 2, f32));
    void* const dy = L.hold(upload(count, 3, f32));
    void* const dx = L.hold(upload(count, 4, f32));
    const std::string algo = "cudnnLRNCrossChannel, size " + std::to_string(size) + stand_in_note();
    L.fwd.push_back({"forward", algo, 0, [=] {
                       CK(cudnnLRNCrossChannelForward(dnn_, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1, &kOne,
                                                      d, x, &kZero, d, y));
                     }});
    L.bwd.push_back({"backward", algo, 0, [=] {
                       CK(cudnnLRNCrossChannelBackward(dnn_, ld, CUDNN_LRN_CROSS_CHANNEL_DIM1,
                                                       &kOne, d, y, d, dy, d, x, &kZero, d, dx));
                     }});
  }

  void softmax(const Layer& l, int batch, GpuLayer& L) {
    const auto d = L.make<TensorDesc>();
    set4d(d, batch, l.out.elements(), 1, 1);
    const i64 count = batch * l.out.elements();
    void* const x = L.hold(upload(count, 1));
    void* const y = L.hold(upload(count, 2));
    void* const dy = L.hold(upload(count, 3));
    void* const dx = L.hold(upload(count, 4));
    L.fwd.push_back({"forward", "cudnnSoftmaxForward (accurate, instance)", 0, [=] {
                       CK(cudnnSoftmaxForward(dnn_, CUDNN_SOFTMAX_ACCURATE,
                                              CUDNN_SOFTMAX_MODE_INSTANCE, &kOne, d, x, &kZero, d,
                                              y));
                     }});
    L.bwd.push_back({"backward", "cudnnSoftmaxBackward (accurate, instance)", 0, [=] {
                       CK(cudnnSoftmaxBackward(dnn_, CUDNN_SOFTMAX_ACCURATE,
                                               CUDNN_SOFTMAX_MODE_INSTANCE, &kOne, d, y, d, dy,
                                               &kZero, d, dx));
                     }});
  }

  void dropout(const Layer& l, int batch, GpuLayer& L) {
    const auto d = L.make<TensorDesc>();
    const bool f32 = fp32_stand_in();
    set4d(d, batch, l.out.c, l.out.h, l.out.w, f32);
    std::size_t states_b = 0, reserve_b = 0;
    CK(cudnnDropoutGetStatesSize(dnn_, &states_b));
    CK(cudnnDropoutGetReserveSpaceSize(d, &reserve_b));
    void* const states = L.hold(DevBuf(states_b));
    void* const reserve = L.hold(DevBuf(reserve_b));
    // The descriptor keeps `states` (the RNG state, seeded here on the stream) for its life.
    const auto dd = L.make<DropDesc>();
    CK(cudnnSetDropoutDescriptor(dd, dnn_, 0.5f, states, states_b, 1234ull));
    const i64 count = batch * l.out.elements();
    void* const x = L.hold(upload(count, 1, f32));
    void* const y = L.hold(upload(count, 2, f32));
    void* const dy = L.hold(upload(count, 3, f32));
    void* const dx = L.hold(upload(count, 4, f32));
    L.fwd.push_back({"forward", "cudnnDropoutForward (0.5)" + stand_in_note(), 0,
                     [=] { CK(cudnnDropoutForward(dnn_, dd, d, x, d, y, reserve, reserve_b)); }});
    L.bwd.push_back({"backward", "cudnnDropoutBackward (0.5)" + stand_in_note(), 0, [=] {
                       CK(cudnnDropoutBackward(dnn_, dd, d, dy, d, dx, reserve, reserve_b));
                     }});
  }

  void add(const Layer& l, int batch, GpuLayer& L) {
    const auto d = L.make<TensorDesc>();
    set4d(d, batch, l.out.c, l.out.h, l.out.w);
    const i64 count = batch * l.out.elements();
    void* const a = L.hold(upload(count, 1));
    void* const y = L.hold(upload(count, 2));
    void* const dy = L.hold(upload(count, 3));
    void* const da = L.hold(upload(count, 4));
    void* const db = L.hold(upload(count, 5));
    const std::size_t bytes = std::size_t(count) * esize();
    L.fwd.push_back({"forward", "cudnnAddTensor", 0,
                     [=] { CK(cudnnAddTensor(dnn_, &kOne, d, a, &kOne, d, y)); }});
    L.bwd.push_back({"backward", "two device-to-device copies", 0, [=] {
                       CK(cudaMemcpyAsync(da, dy, bytes, cudaMemcpyDeviceToDevice, stream_));
                       CK(cudaMemcpyAsync(db, dy, bytes, cudaMemcpyDeviceToDevice, stream_));
                     }});
  }

  void concat(const Layer& l, int batch, GpuLayer& L) {
    const i64 hw = l.out.h * l.out.w, ca = l.out.c / 2, cb = l.out.c - ca;
    const std::size_t ea = std::size_t(ca * hw) * esize(), eb = std::size_t(cb * hw) * esize();
    const std::size_t rows = std::size_t(batch);
    void* const a = L.hold(upload(batch * ca * hw, 1));
    void* const b = L.hold(upload(batch * cb * hw, 2));
    char* const y = static_cast<char*>(L.hold(upload(batch * l.out.elements(), 3)));
    L.fwd.push_back(
        {"forward", "cudaMemcpy2DAsync of two parts", 0, [=] {
           CK(cudaMemcpy2DAsync(y, ea + eb, a, ea, ea, rows, cudaMemcpyDeviceToDevice, stream_));
           CK(cudaMemcpy2DAsync(y + ea, ea + eb, b, eb, eb, rows, cudaMemcpyDeviceToDevice,
                                stream_));
         }});
    L.bwd.push_back(
        {"backward", "cudaMemcpy2DAsync of two parts", 0, [=] {
           CK(cudaMemcpy2DAsync(a, ea, y, ea + eb, ea, rows, cudaMemcpyDeviceToDevice, stream_));
           CK(cudaMemcpy2DAsync(b, eb, y + ea, ea + eb, eb, rows, cudaMemcpyDeviceToDevice,
                                stream_));
         }});
  }

  Precision precision_;
  int device_;  // CUDA device index: made current before any call that allocates or launches
  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::vector<cudaEvent_t> marks_;  // mark()'s events; the first marks_used_ recorded
  std::size_t marks_used_ = 0;
  cudnnHandle_t dnn_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  std::size_t workspace_limit_ = 0;
  DevBuf ws_;  // the shared convolution workspace (workspace())
};

// Frees on the backend's device, whichever is current on the destroying thread. The
// kernels have finished: forward(), backward() and time_gpu all synchronize.
GpuLayer::~GpuLayer() { cudaSetDevice(backend_->device_index()); }

void GpuLayer::launch(const std::vector<Kernel>& kernels) {
  CK(cudaSetDevice(backend_->device_index()));
  for (const Kernel& k : kernels) k.run();
}

void GpuLayer::run(const std::vector<Kernel>& kernels) {
  launch(kernels);
  CK(cudaStreamSynchronize(backend_->stream()));
}

}  // namespace

}  // namespace possim::calibrate

extern "C" possim::calibrate::KernelBackend* possim_make_cuda_backend_v3(
    possim::calibrate::Precision precision, int device) {
  return new possim::calibrate::CudaBackend(precision, device);
}

extern "C" int possim_cuda_device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}
