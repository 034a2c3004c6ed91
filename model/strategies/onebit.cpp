// 1-bit SGD (CNTK): gradients quantized to one bit per value with the quantization error
// carried to the next step, plus two floats per column to reconstruct; both directions
// go through the PS at that size. The GPU pays a quantization pass per layer.
#include <algorithm>

#include "model/strategies/plan_builder.hpp"
#include "model/strategies/registry.hpp"

namespace possim {
namespace {

// Bytes on the wire per gradient byte (`value_bytes` each): 1 bit per value + 2 fp32
// reconstruction levels per column.
double wire_scale(const Layer& l, double value_bytes) {
  const double values = double(l.params());
  const double columns = l.kind == LayerKind::fc ? double(l.fc_m) : double(std::max<std::int64_t>(1, l.out.c));
  return std::min(1.0, (values / 8.0 + 8.0 * columns) / (values * value_bytes));
}

class OneBit : public Strategy {
 public:
  const char* name() const override { return "onebit"; }
  SyncPlan plan(const PlanRequest& r) const override {
    PlanBuilder b(r, name());
    b.add_compute();
    std::vector<std::pair<int, TaskId>> synced;
    for (int l : b.param_layers_top_down()) {
      Task q = PlanBuilder::gpu_task(Step::quantize, l, b.param_bytes(l) / r.profile->quantize_bytes_per_s);
      // CNTK's runtime quantizes and exchanges once the whole backward pass is done.
      q.deps = {now(r.profile->sync_after_backward ? b.last_backward() : b.backward(l))};
      const TaskId quantized = b.add(std::move(q));
      const double scale = wire_scale(b.net().layers[std::size_t(l)], b.gradient_value_bytes());
      synced.emplace_back(l, b.ps_sync(l, b.tensor_hashed(l, b.param_bytes(l)), {now(quantized)}, Wire::quantized(scale)));
      b.decide(b.costs(l, "onebit", "1-bit values + 2 floats per column"));
    }
    b.close_iteration(synced);
    return b.finish();
  }
};

}  // namespace

std::unique_ptr<Strategy> make_onebit_strategy() { return std::make_unique<OneBit>(); }
}  // namespace possim
