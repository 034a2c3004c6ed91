#include "model/strategies/registry.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace possim {

namespace {
using Factory = std::unique_ptr<Strategy> (*)();
struct Entry {
  const char* name;
  Factory make;
};
constexpr Entry kStrategies[] = {
    {"single", make_single_strategy},
    {"ps", make_ps_strategy},
    {"wfbp", make_wfbp_strategy},           {"poseidon", make_poseidon_strategy},
    {"tf_stock", make_tf_stock_strategy},   {"adam", make_adam_strategy},
    {"onebit", make_onebit_strategy},       {"allreduce", make_allreduce_strategy},
    {"hier_allreduce", make_hier_allreduce_strategy},
    {"tree_allreduce", make_tree_allreduce_strategy},
};
}  // namespace

std::vector<std::string> strategy_factories() {
  std::vector<std::string> names;
  for (const auto& e : kStrategies) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<Strategy> make_strategy(const std::string& name) {
  for (const auto& e : kStrategies)
    if (name == e.name) return e.make();
  // A name inputs accept must plan: a vocabulary entry without a factory is possim's bug.
  if (is_strategy(name))
    throw std::logic_error("strategy '" + name + "' is named in model/input/strategy_names.cpp " +
                           "but has no factory in model/strategies/registry.cpp");
  std::string known;
  for (const std::string& n : strategy_names()) known += std::string(known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown strategy '" + name + "' (expected one of " + known + ")");
}

SyncPlan make_plan(const std::string& strategy, const PlanRequest& r) {
  return make_strategy(strategy)->plan(r);
}

}  // namespace possim
