// Poseidon: WFBP plus hybrid communication. Each layer takes the scheme BestScheme picks
// from Table 1: SFB for FC layers whose factors are cheaper than the full matrix, the
// PS otherwise (or, under the 2016 rule, the Adam-style centralized SF scheme).
#include <cstdio>

#include "model/plan/cost.hpp"
#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

std::string fmt_params(double p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3gM", p / 1e6);
  return buf;
}

std::string fmt_ratio(double w) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", w);
  return buf;
}

class Poseidon : public Strategy {
 public:
  const char* name() const override { return "poseidon"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    b.add_compute();
    std::vector<std::pair<int, TaskId>> synced;
    int fc_index = 0;
    // Factors travel as activations, the PS's matrices as gradients: compare bytes.
    const double w = b.activation_value_bytes() / b.gradient_value_bytes();
    for (int l : b.param_layers_top_down()) {
      const Layer& layer = b.net().layers[std::size_t(l)];
      const Scheme s = r.options.best_scheme == BestSchemeRule::atc17
                           ? best_scheme_atc17(layer, b.workers(), b.shards(), b.node_batch(), w)
                           : best_scheme_sacp16(layer, b.workers(), b.node_batch(), w);
      const Deps after = {now(b.backward(l))};
      TaskId done;
      std::string why;
      LayerDecision probe = b.costs(l, "", "");
      if (layer.kind != LayerKind::fc) {
        why = "not FC: no sufficient factors";
      } else if (b.workers() < 2) {
        // Table 1 counts traffic between nodes only; the update still goes through the node's
        // shard, and several GPUs still sync through their leader.
        why = "one node: no peer node to send factors to (Table 1: 0 between nodes), so the PS";
        if (r.cluster.gpus_per_node > 1)
          why += "; its " + std::to_string(r.cluster.gpus_per_node) + " GPUs still sync through the leader";
      } else if (s == Scheme::sfb) {
        why = "SFB " + fmt_params(probe.sfb_params) + " <= " +
              (r.options.best_scheme == BestSchemeRule::atc17 ? "PS " + fmt_params(probe.ps_params)
                                                             : "Adam");
      } else {
        why = "SFB " + fmt_params(probe.sfb_params) + " > " +
              (s == Scheme::ps ? "PS " + fmt_params(probe.ps_params) : "Adam");
      }
      if (w != 1.0 && layer.kind == LayerKind::fc && b.workers() >= 2)
        why += " (SFB's values weighed x" + fmt_ratio(w) + ": factors are " +
               to_string(activation_dtype(r.profile->numerics.precision)) + ", gradients " +
               to_string(r.profile->numerics.gradient) + ")";
      if (s == Scheme::sfb) {
        done = b.sfb_sync(l, after);
      } else if (s == Scheme::adam) {
        done = b.adam_sync(l, fc_index++ % b.shards(), after);
      } else {
        done = b.ps_sync(l, b.tensor_hashed(l, b.param_bytes(l)), after);
      }
      synced.emplace_back(l, done);
      b.decide(b.costs(l, to_string(s), why));
    }
    b.close_iteration(synced);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_poseidon_strategy() { return std::make_unique<Poseidon>(); }
}  // namespace possim
