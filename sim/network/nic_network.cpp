#include "sim/network/nic_network.hpp"

namespace possim::sim {

std::unique_ptr<NicNetwork> make_star_network(const Platform& platform);
std::unique_ptr<NicNetwork> make_lmm_network(const Platform& platform,
                                             std::vector<simgrid::s4u::Mailbox*> node_inbox);

std::unique_ptr<NicNetwork> make_nic_network(NetworkBackend backend, const Platform& platform,
                                             std::vector<simgrid::s4u::Mailbox*> node_inbox) {
  if (backend == NetworkBackend::lmm) return make_lmm_network(platform, std::move(node_inbox));
  return make_star_network(platform);
}

}  // namespace possim::sim
