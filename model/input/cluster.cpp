#include "model/input/cluster.hpp"

namespace possim {

const char* to_string(ServerPlacement p) {
  return p == ServerPlacement::colocated ? "colocated" : "dedicated";
}

}  // namespace possim
