// One layer of a network as possim sees it: shapes, parameters and FLOPs per image.
#pragma once
#include <cstdint>
#include <string>

namespace possim {

// Activation shape of one image: channels x height x width (FC outputs use c only).
struct Shape {
  std::int64_t c = 0, h = 1, w = 1;
  std::int64_t elements() const { return c * h * w; }
  bool operator==(const Shape& o) const { return c == o.c && h == o.h && w == o.w; }
};

enum class LayerKind { conv, fc, bn, pool, relu, lrn, concat, add, dropout, softmax };
inline constexpr LayerKind kAllLayerKinds[] = {LayerKind::conv,   LayerKind::fc,  LayerKind::bn,     LayerKind::pool,
                                               LayerKind::relu,   LayerKind::lrn, LayerKind::concat, LayerKind::add,
                                               LayerKind::dropout, LayerKind::softmax};
// GEMMs and convolutions: bound by compute (and run on a precision's tensor-core math); every
// other kind is a memory-bound pass.
inline bool compute_bound_kind(LayerKind k) { return k == LayerKind::conv || k == LayerKind::fc; }

const char* to_string(LayerKind k);
// Throws std::invalid_argument naming the bad text.
LayerKind layer_kind_from_string(const std::string& s);

struct Layer {
  std::string name;
  LayerKind kind = LayerKind::conv;
  Shape in, out;                 // per image
  std::int64_t weight_params = 0;  // conv/fc weights, BN gamma
  std::int64_t bias_params = 0;    // conv/fc bias, BN beta
  double fwd_macs = 0;   // per image; conv and fc only (MODEL_ZOO.md convention)
  double fwd_flops = 0;  // per image; 2 x MACs for conv/fc, element operations otherwise
  double bwd_flops = 0;  // per image; ~2 x forward (data + weight gradients)
  // FC only: grad W = sum_k u_k v_k^T with u in R^M (outputs), v in R^N (inputs).
  std::int64_t fc_m = 0, fc_n = 0;
  // Geometry, kept for the calibrator (conv and pool).
  int kernel_h = 0, kernel_w = 0, stride = 1, pad_h = 0, pad_w = 0, groups = 1;
  bool average_pool = false;  // pool: averaging (Caffe AVE) rather than max

  std::int64_t params() const { return weight_params + bias_params; }
  bool has_params() const { return params() > 0; }
};

}  // namespace possim
