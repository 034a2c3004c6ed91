// Builds a Network layer by layer, tracking the current per-image activation shape and
// filling in each layer's parameters and FLOPs by the MODEL_ZOO.md conventions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/workload/network.hpp"

namespace possim::zoo {

class NetBuilder {
 public:
  NetBuilder(std::string name, std::string description, Shape input);

  // The shape the next layer consumes. Branches save it, and restore it with set_cur.
  const Shape& cur() const { return cur_; }
  void set_cur(const Shape& s) { cur_ = s; }

  // Square kernel, same padding on both axes.
  Shape conv(const std::string& name, std::int64_t cout, int k, int stride = 1, int pad = 0,
             int groups = 1, bool bias = true);
  // Rectangular kernel (Inception's 1x7 / 7x1), no bias (always followed by BatchNorm).
  Shape conv_rect(const std::string& name, std::int64_t cout, int kh, int kw, int pad_h,
                  int pad_w);
  Shape fc(const std::string& name, std::int64_t out);
  Shape bn(const std::string& name);
  Shape relu(const std::string& name);
  Shape lrn(const std::string& name, int local_size);
  Shape dropout(const std::string& name);
  Shape softmax(const std::string& name);
  // ceil: Caffe's rounding of the output size (torchvision rounds down). Costs are the
  // same; the type is recorded for the arithmetic compute (Layer::average_pool).
  Shape max_pool(const std::string& name, int k, int stride, int pad = 0, bool ceil = false);
  Shape avg_pool(const std::string& name, int k, int stride, int pad = 0, bool ceil = false);
  // Joins branch outputs along channels; all must share height and width.
  Shape concat(const std::string& name, const std::vector<Shape>& parts);
  // Residual sum of two equal shapes.
  Shape add(const std::string& name, const Shape& a, const Shape& b);

  Network finish() { return std::move(net_); }

 private:
  Shape pool(const std::string& name, int k, int stride, int pad, bool ceil);
  // Appends an element-wise layer: `ops` operations per output element, backward 2x.
  Shape elementwise(const std::string& name, LayerKind kind, const Shape& out, double ops);
  Shape push(Layer l);

  Network net_;
  Shape cur_;
  bool seen_conv_ = false;
};

}  // namespace possim::zoo
