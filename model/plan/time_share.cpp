#include "model/plan/time_share.hpp"

namespace possim {

const char* column_name(TimeShare s) {
  static const char* names[kTimeShares] = {"compute_s",         "exposed_network_s", "exposed_pcie_s",
                                           "exposed_host_copy_s", "server_apply_s",    "sf_rebuild_s",
                                           "quantization_s",      "barrier_wait_s"};
  return names[std::size_t(s)];
}

const char* short_name(TimeShare s) {
  static const char* names[kTimeShares] = {"compute", "net", "PCIe", "host copy", "apply", "rebuild", "quant", "wait"};
  return names[std::size_t(s)];
}

const char* share_meaning(TimeShare s) {
  static const char* names[kTimeShares] = {
      "GPU forward and backward passes", "network flows not hidden by compute",
      "PCIe and GPU-to-GPU copies not hidden",
      "the stack's host work on each copied byte (runtime staging, PS client passes) not hidden",
      "parameter-server shards applying updates",
      "SF rebuild on the GPU", "1-bit quantization on the GPU",
      "the step's barrier: waiting for stragglers, and the stack's step synchronisation round"};
  return names[std::size_t(s)];
}

}  // namespace possim
