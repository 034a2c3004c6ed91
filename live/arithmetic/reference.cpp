#include "live/arithmetic/reference.hpp"

#include "live/arithmetic/onebit.hpp"

namespace possim::live::arith {

Params sgd_reference(const Settings& s, int workers, int batch, int iterations, std::vector<double>* loss) {
  CpuNetwork net(*s.net);
  Params w = net.initial(s.seed);
  for (int t = 0; t < iterations; ++t) {
    net.begin(make_batch(s.seed, std::int64_t(t) * workers * batch, workers * batch, net.features(), net.classes()));
    for (int l = 0; l < net.layers(); ++l) net.forward(l, w[std::size_t(l)]);
    if (loss) loss->push_back(net.loss());
    for (int l = net.layers() - 1; l >= 0; --l) net.backward(l, w[std::size_t(l)]);
    for (int l = 0; l < net.layers(); ++l)
      sgd_step(w[std::size_t(l)].data(), net.gradient(l).data(), w[std::size_t(l)].size(), float(s.learning_rate));
  }
  return w;
}

Params onebit_reference(const SyncPlan& plan, const Settings& s) {
  CpuNetwork net(*s.net);
  Params w = net.initial(s.seed);
  const int workers = plan.workers, batch = plan.batch_per_gpu * std::max(1, plan.cluster.gpus_per_node);
  std::vector<Params> worker_residual(static_cast<std::size_t>(workers));
  for (auto& r : worker_residual)
    for (const auto& p : w) r.emplace_back(p.size(), 0.0f);
  Params shard_residual;
  for (const auto& p : w) shard_residual.emplace_back(p.size(), 0.0f);
  for (int t = 0; t < std::max(1, plan.iterations); ++t) {
    std::vector<Params> grads(static_cast<std::size_t>(workers));
    for (int k = 0; k < workers; ++k) {
      net.begin(make_batch(s.seed, (std::int64_t(t) * workers + k) * batch, batch, net.features(), net.classes()));
      for (int l = 0; l < net.layers(); ++l) net.forward(l, w[std::size_t(l)]);
      for (int l = net.layers() - 1; l >= 0; --l) net.backward(l, w[std::size_t(l)]);
      for (int l = 0; l < net.layers(); ++l) grads[std::size_t(k)].push_back(net.gradient(l));
    }
    for (const Tensor& tensor : plan.tensors) {
      const std::size_t l = std::size_t(tensor.layer);
      const std::size_t column = std::max<std::size_t>(1, net.unit_inputs(tensor.layer));
      std::size_t at = 0;
      for (const Slice& slice : tensor.slices) {
        const std::size_t n = std::size_t(slice.bytes / sizeof(float));
        std::vector<float> mean(n, 0.0f);
        for (int k = 0; k < workers; ++k) {
          const auto code = quantize(grads[std::size_t(k)][l].data() + at, worker_residual[std::size_t(k)][l].data() + at,
                                     n, at, column);
          dequantize_add(code.data(), code.size(), mean.data(), n, at, column, 1.0f / float(workers));
        }
        const auto reply = quantize(mean.data(), shard_residual[l].data() + at, n, at, column);
        dequantize_add(reply.data(), reply.size(), w[l].data() + at, n, at, column, float(-s.learning_rate));
        at += n;
      }
    }
  }
  return w;
}

}  // namespace possim::live::arith
