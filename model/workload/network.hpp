// A network: an ordered list of layers (execution order; backward runs it in reverse).
#pragma once
#include <string>
#include <vector>

#include "model/workload/layer.hpp"

namespace possim {

struct Network {
  std::string name;
  std::string description;
  std::string file_sha256;  // of the layer JSON it was read from; "" for a zoo model
  Shape input;
  std::vector<Layer> layers;

  std::int64_t total_params() const;
  double total_fwd_macs() const;   // per image
  double total_fwd_flops() const;  // per image
  double total_bwd_flops() const;  // per image
  // Index of the layer with this name, or -1.
  int find(const std::string& layer_name) const;
};

}  // namespace possim
