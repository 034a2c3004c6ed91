// The strategies' names: what a scenario or a measured point may name. They sit below the
// strategies themselves so that inputs can be checked without the plans; the registry
// (model/strategies/registry.cpp) holds one factory per name and fails on a name without one.
#pragma once
#include <string>
#include <vector>

namespace possim {

// single ps wfbp poseidon tf_stock adam onebit allreduce hier_allreduce tree_allreduce
const std::vector<std::string>& strategy_names();
bool is_strategy(const std::string& name);
// The reference every speedup is over: one GPU of one node, whatever the cluster, which
// communicates nothing ("single"). Sweeps run it once per bandwidth; reports draw no
// scaling line for it.
const char* reference_strategy();
bool is_reference(const std::string& strategy);

}  // namespace possim
