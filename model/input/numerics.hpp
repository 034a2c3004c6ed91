// How a scenario trains numerically: the precision its kernels compute in and the element
// type its gradients travel in. Compute reads the device's peak for the precision's math
// (tensor cores), activations and sufficient factors are stored in the precision's
// activation type, the optimizer updates master weights, and every byte on the wire or over
// PCIe is a gradient (or parameter) element of the gradient type.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace possim {

// An element type in memory or on the wire (bit1: CNTK's 1-bit quantized values).
enum class DType : std::uint8_t { fp32, bf16, fp16, bit1 };
const char* to_string(DType d);
// Bytes one value occupies (bit1: 1/8).
double bytes_per_value(DType d);
// "fp32", "fp16", "bf16": the types a scenario's gradient_dtype may name.
std::optional<DType> gradient_dtype_from_string(const std::string& name);

// fp32: IEEE single everywhere. tf32: fp32 storage, TensorFloat-32 tensor-core math (Ampere+).
// amp_fp16 / amp_bf16: automatic mixed precision (PyTorch autocast, TF's mixed_float16):
// GEMMs and convolutions in 16-bit on tensor cores, 16-bit activations, fp32 master weights
// and, by default, fp32 gradients. fp16 / bf16: everything 16-bit, master weights included.
enum class Precision : std::uint8_t { fp32, tf32, amp_fp16, amp_bf16, fp16, bf16 };
const char* to_string(Precision p);
std::optional<Precision> precision_from_string(const std::string& name);
const std::vector<std::string>& precision_names();

// The tensor-core math a precision's GEMMs and convolutions run in: the key of the
// profile's peak ("fp32", "tf32", "fp16", "bf16").
const char* math_of(Precision p);
// Activations (and so sufficient factors and memory-bound layers' traffic).
DType activation_dtype(Precision p);
// The weights the optimizer updates: fp32 unless the whole model is 16-bit.
DType master_dtype(Precision p);
// What a framework communicates by default: its gradients' own type, the master
// weights' (autocast keeps fp32 parameters, so fp32 gradients; pure 16-bit training, 16-bit).
DType default_gradient_dtype(Precision p);

struct Numerics {
  Precision precision = Precision::fp32;
  DType gradient = DType::fp32;
  bool operator==(const Numerics& o) const { return precision == o.precision && gradient == o.gradient; }
  bool is_fp32() const { return precision == Precision::fp32 && gradient == DType::fp32; }
};

}  // namespace possim
