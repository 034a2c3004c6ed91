#include "model/input/cluster.hpp"

namespace possim {

const char* to_string(ServerPlacement p) {
  return p == ServerPlacement::colocated ? "colocated" : "dedicated";
}

const char* to_string(Transport t) { return t == Transport::tcp ? "tcp" : "rdma"; }

std::optional<Transport> parse_transport(const std::string& s) {
  if (s == "tcp") return Transport::tcp;
  if (s == "rdma") return Transport::rdma;
  return std::nullopt;
}

}  // namespace possim
