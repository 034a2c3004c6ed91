#include "model/run/collective_bench.hpp"

#include <algorithm>
#include <cmath>

#include "model/input/error.hpp"
#include "model/run/sweep.hpp"

namespace possim {

const std::vector<std::string>& collective_strategies() {
  static const std::vector<std::string> names = {"allreduce", "tree_allreduce", "hier_allreduce"};
  return names;
}

Scenario collective_scenario(const Scenario& base, const std::string& strategy, int nodes, double nic_gbps,
                             double bytes) {
  const auto& names = collective_strategies();
  if (std::find(names.begin(), names.end(), strategy) == names.end())
    throw InputError("--strategy", "", "'" + strategy + "' is not one collective per tensor",
                     "allreduce, tree_allreduce or hier_allreduce");
  const double value_bytes = bytes_per_value(base.numerics.gradient);
  const double values = bytes / value_bytes;
  if (!(values >= 1) || values != std::floor(values) || values > 1e13)
    throw InputError("--bytes", "", std::to_string(bytes) + " bytes is not whole " + to_string(base.numerics.gradient) +
                                        " gradient values",
                     "a multiple of " + std::to_string(int(value_bytes)) + " bytes, at least one value");
  Scenario s = base;
  Layer t;
  t.name = "tensor";
  t.kind = LayerKind::fc;
  t.in = {1, 1, 1};
  t.out = {std::int64_t(values), 1, 1};
  t.weight_params = std::int64_t(values);
  t.fc_m = std::int64_t(values);
  t.fc_n = 1;
  Network net;
  net.name = "one_tensor";
  net.description = "one gradient tensor of " + std::to_string(std::int64_t(bytes)) + " bytes, no compute";
  net.input = {1, 1, 1};
  net.layers = {t};
  s.network = net;
  s.model_ref = net.name;
  s.model_refs = {net.name};
  s.networks.clear();
  s.batch_per_gpu = 1;
  s.nodes = {nodes};
  s.nic_gbps = {nic_gbps};
  s.strategies = {strategy};
  s.iterations = std::max(s.iterations, 3);  // a steady state: the first is left out
  s = with_profile(s, s.profile);             // the strategy's own stack, if the scenario had none for it
  // Nothing but the collective on the GPU: all_reduce_perf runs no layers, no framework
  // bookkeeping, no optimizer.
  for (auto& [name, p] : s.strategy_profiles) {
    p.per_iteration_s = 0;
    p.optimizer_bytes_per_s = 0;
  }
  return s;
}

double collective_time_s(const Scenario& s, const std::string& strategy, int nodes, double nic_gbps, double bytes,
                         const Engine& engine) {
  const Scenario c = collective_scenario(s, strategy, nodes, nic_gbps, bytes);
  const Result r = run_point(c, SweepPoint{strategy, nodes, nic_gbps}, engine, 1.0);
  return r.iteration_s;
}

}  // namespace possim
