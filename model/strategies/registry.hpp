// One factory per strategy file; registry.cpp maps names to them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "model/strategies/strategy.hpp"

namespace possim {

std::unique_ptr<Strategy> make_single_strategy();
std::unique_ptr<Strategy> make_ps_strategy();
std::unique_ptr<Strategy> make_wfbp_strategy();
std::unique_ptr<Strategy> make_poseidon_strategy();
std::unique_ptr<Strategy> make_tf_stock_strategy();
std::unique_ptr<Strategy> make_adam_strategy();
std::unique_ptr<Strategy> make_onebit_strategy();
std::unique_ptr<Strategy> make_allreduce_strategy();
std::unique_ptr<Strategy> make_hier_allreduce_strategy();
std::unique_ptr<Strategy> make_tree_allreduce_strategy();

// The names the registry has a factory for, in its table's order (the tests hold them to
// strategy_names()).
std::vector<std::string> strategy_factories();

}  // namespace possim
