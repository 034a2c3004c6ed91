#include "kernels/kernel_backend.hpp"

namespace possim::calibrate {

std::vector<bool> needs_input_grad(const Network& net) {
  std::vector<bool> out(net.layers.size(), true);
  for (std::size_t i = 0; i < net.layers.size(); ++i) {
    out[i] = false;
    if (net.layers[i].has_params()) break;
  }
  return out;  // only conv and fc consult it (their data gradient is a separate kernel)
}

}  // namespace possim::calibrate
