#include "model/input/strategy_names.hpp"

#include <algorithm>

namespace possim {

namespace {
// In the order lists and errors name them. First: the speedup reference (reference_strategy()).
constexpr const char* kNames[] = {"single",   "ps",     "wfbp",      "poseidon",       "tf_stock",
                                  "adam",     "onebit", "allreduce", "hier_allreduce", "tree_allreduce"};
}  // namespace

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names(std::begin(kNames), std::end(kNames));
  return names;
}

const char* reference_strategy() { return kNames[0]; }
bool is_reference(const std::string& strategy) { return strategy == reference_strategy(); }

bool is_strategy(const std::string& name) {
  const auto& n = strategy_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

}  // namespace possim
