#include "model/input/numerics.hpp"

#include <array>

namespace possim {

const char* to_string(DType d) {
  static const char* names[] = {"fp32", "bf16", "fp16", "bit1"};
  return names[std::size_t(d)];
}

double bytes_per_value(DType d) {
  switch (d) {
    case DType::fp32: return 4;
    case DType::bf16:
    case DType::fp16: return 2;
    case DType::bit1: return 1.0 / 8;
  }
  return 4;
}

std::optional<DType> gradient_dtype_from_string(const std::string& name) {
  for (DType d : {DType::fp32, DType::fp16, DType::bf16})
    if (name == to_string(d)) return d;
  return std::nullopt;
}

namespace {
struct PrecisionInfo {
  const char* name;
  const char* math;
  DType activations;
  DType master;
};
constexpr std::array<PrecisionInfo, 6> kInfo = {{
    {"fp32", "fp32", DType::fp32, DType::fp32},
    {"tf32", "tf32", DType::fp32, DType::fp32},
    {"amp_fp16", "fp16", DType::fp16, DType::fp32},
    {"amp_bf16", "bf16", DType::bf16, DType::fp32},
    {"fp16", "fp16", DType::fp16, DType::fp16},
    {"bf16", "bf16", DType::bf16, DType::bf16},
}};
}  // namespace

const char* to_string(Precision p) { return kInfo[std::size_t(p)].name; }
const char* math_of(Precision p) { return kInfo[std::size_t(p)].math; }
DType activation_dtype(Precision p) { return kInfo[std::size_t(p)].activations; }
DType master_dtype(Precision p) { return kInfo[std::size_t(p)].master; }
DType default_gradient_dtype(Precision p) { return master_dtype(p); }

std::optional<Precision> precision_from_string(const std::string& name) {
  for (std::size_t i = 0; i < kInfo.size(); ++i)
    if (name == kInfo[i].name) return Precision(i);
  return std::nullopt;
}

const std::vector<std::string>& precision_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& i : kInfo) n.push_back(i.name);
    return n;
  }();
  return names;
}

}  // namespace possim
