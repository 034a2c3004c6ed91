// Small hand-made networks and profiles whose times can be worked out by hand.
#pragma once
#include "model/input/error.hpp"
#include "model/input/profile.hpp"
#include "model/strategies/strategy.hpp"

namespace possim::test {

// An FC layer M x N (no bias) with exact FLOPs, preceded by nothing.
inline Layer fc_layer(const std::string& name, std::int64_t m, std::int64_t n) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::fc;
  l.in = Shape{n, 1, 1};
  l.out = Shape{m, 1, 1};
  l.weight_params = m * n;
  l.fc_m = m;
  l.fc_n = n;
  l.fwd_macs = double(m * n);
  l.fwd_flops = 2.0 * double(m * n);
  l.bwd_flops = 4.0 * double(m * n);
  return l;
}

inline Layer conv_layer(const std::string& name, std::int64_t cin, std::int64_t cout, int hw) {
  Layer l;
  l.name = name;
  l.kind = LayerKind::conv;
  l.in = Shape{cin, hw, hw};
  l.out = Shape{cout, hw, hw};
  l.weight_params = cout * cin * 9;
  l.bias_params = cout;
  l.kernel_h = l.kernel_w = 3;
  l.pad_h = l.pad_w = 1;
  l.fwd_macs = double(cout) * hw * hw * double(cin) * 9;
  l.fwd_flops = 2 * l.fwd_macs;
  l.bwd_flops = 2 * l.fwd_flops;
  return l;
}

inline Network one_fc_net(std::int64_t m = 1024, std::int64_t n = 2048) {
  Network net;
  net.name = "one_fc";
  net.input = Shape{n, 1, 1};
  net.layers.push_back(fc_layer("fc", m, n));
  return net;
}

// Two square FC layers of `width`: two tensors of the same size (support/two_fc.hpp has
// the all-reduce mechanisms' hand-worked pair).
inline Network square_fc_pair(std::int64_t width) {
  Network net;
  net.name = "two_fc";
  net.input = Shape{width, 1, 1};
  net.layers.push_back(fc_layer("fc1", width, width));
  net.layers.push_back(fc_layer("fc2", width, width));
  return net;
}

// conv-conv-fc-fc: FLOPs at the bottom, parameters at the top, like AlexNet or VGG.
inline Network small_cnn() {
  Network net;
  net.name = "small_cnn";
  net.input = Shape{16, 32, 32};
  net.layers.push_back(conv_layer("conv1", 16, 64, 32));
  net.layers.push_back(conv_layer("conv2", 64, 64, 32));
  net.layers.push_back(fc_layer("fc1", 2048, 65536));
  net.layers.push_back(fc_layer("fc2", 1000, 2048));
  return net;
}

// Every kind at 100% of 1 TFLOP/s: a layer takes batch x flops / 1e12 seconds.
inline Profile flat_profile() {
  Profile p;
  p.name = "flat";
  p.device = "test";
  p.path = "test";
  p.peak_flops_per_s = 1e12;
  for (LayerKind k : {LayerKind::conv, LayerKind::fc, LayerKind::bn, LayerKind::pool,
                      LayerKind::relu, LayerKind::lrn, LayerKind::concat, LayerKind::add,
                      LayerKind::dropout, LayerKind::softmax})
    p.kind_efficiency[k] = 1.0;
  p.pcie_bytes_per_s = 10e9;
  p.pcie_latency_s = 10e-6;
  p.d2d_bytes_per_s = 20e9;
  p.tcp_goodput = 0.9;
  p.per_message_s = 20e-6;
  p.server_apply_bytes_per_s = 5e9;
  p.rebuild_flops_per_s = 4e12;
  p.quantize_bytes_per_s = 100e9;
  p.per_iteration_s = 0;
  return p;
}

inline PlanRequest request(const Network& net, const Profile& prof, int nodes, double gbps,
                           int batch = 32, int iterations = 4) {
  PlanRequest r;
  r.net = &net;
  r.profile = &prof;
  r.cluster.nodes = nodes;
  r.cluster.nic_gbps = gbps;
  r.cluster.latency_s = 50e-6;
  r.cluster.server_shards = nodes;
  r.batch_per_gpu = batch;
  r.iterations = iterations;
  return r;
}

// The message of the InputError that f throws; other exceptions fail the test.
template <class F>
std::string input_error(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError thrown)";
}

}  // namespace possim::test
