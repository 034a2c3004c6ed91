#include "model/strategies/registry.hpp"

#include <stdexcept>

namespace possim {

namespace {
using Factory = std::unique_ptr<Strategy> (*)();
struct Entry {
  const char* name;
  Factory make;
};
constexpr Entry kStrategies[] = {
    {"single", make_single_strategy},  // first: the speedup reference (reference_strategy())
    {"ps", make_ps_strategy},
    {"wfbp", make_wfbp_strategy},           {"poseidon", make_poseidon_strategy},
    {"tf_stock", make_tf_stock_strategy},   {"adam", make_adam_strategy},
    {"onebit", make_onebit_strategy},       {"allreduce", make_allreduce_strategy},
    {"hier_allreduce", make_hier_allreduce_strategy},
    {"tree_allreduce", make_tree_allreduce_strategy},
};
}  // namespace

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& e : kStrategies) n.emplace_back(e.name);
    return n;
  }();
  return names;
}

const char* reference_strategy() { return kStrategies[0].name; }
bool is_reference(const std::string& strategy) { return strategy == reference_strategy(); }

bool is_strategy(const std::string& name) {
  for (const auto& e : kStrategies)
    if (name == e.name) return true;
  return false;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name) {
  for (const auto& e : kStrategies)
    if (name == e.name) return e.make();
  std::string known;
  for (const auto& e : kStrategies) known += std::string(known.empty() ? "" : ", ") + e.name;
  throw std::invalid_argument("unknown strategy '" + name + "' (expected one of " + known + ")");
}

SyncPlan make_plan(const std::string& strategy, const PlanRequest& r) {
  return make_strategy(strategy)->plan(r);
}

}  // namespace possim
