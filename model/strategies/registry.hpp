// One factory per strategy file; registry.cpp maps names to them.
#pragma once
#include <memory>

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

}  // namespace possim
