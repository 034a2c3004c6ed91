#include "model/workload/network.hpp"

#include <stdexcept>

namespace possim {

std::int64_t Network::total_params() const {
  std::int64_t n = 0;
  for (const auto& l : layers) n += l.params();
  return n;
}
double Network::total_fwd_macs() const {
  double n = 0;
  for (const auto& l : layers) n += l.fwd_macs;
  return n;
}
double Network::total_fwd_flops() const {
  double n = 0;
  for (const auto& l : layers) n += l.fwd_flops;
  return n;
}
double Network::total_bwd_flops() const {
  double n = 0;
  for (const auto& l : layers) n += l.bwd_flops;
  return n;
}
int Network::find(const std::string& layer_name) const {
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (layers[i].name == layer_name) return int(i);
  return -1;
}

namespace {
constexpr struct {
  LayerKind kind;
  const char* name;
} kKinds[] = {{LayerKind::conv, "conv"},       {LayerKind::fc, "fc"},
              {LayerKind::bn, "bn"},           {LayerKind::pool, "pool"},
              {LayerKind::relu, "relu"},       {LayerKind::lrn, "lrn"},
              {LayerKind::concat, "concat"},   {LayerKind::add, "add"},
              {LayerKind::dropout, "dropout"}, {LayerKind::softmax, "softmax"}};
}  // namespace

const char* to_string(LayerKind k) {
  for (const auto& e : kKinds)
    if (e.kind == k) return e.name;
  return "?";
}

LayerKind layer_kind_from_string(const std::string& s) {
  for (const auto& e : kKinds)
    if (s == e.name) return e.kind;
  throw std::invalid_argument("unknown layer kind '" + s +
                              "' (expected conv, fc, bn, pool, relu, lrn, concat, add, "
                              "dropout or softmax)");
}

}  // namespace possim
