#include "live/arithmetic/reference.hpp"

#include "live/arithmetic/onebit.hpp"

namespace possim::live::arith {

Params sgd_reference(const Settings& s, int workers, int batch, int iterations, std::vector<double>* loss) {
  CpuNetwork mlp(*s.net);
  Params w = mlp.initial(s.seed);
  for (int t = 0; t < iterations; ++t) {
    mlp.begin(make_batch(s.seed, std::int64_t(t) * workers * batch, workers * batch, mlp.features(), mlp.classes()));
    for (int l = 0; l < mlp.layers(); ++l) mlp.forward(l, w[std::size_t(l)]);
    if (loss) loss->push_back(mlp.loss());
    for (int l = mlp.layers() - 1; l >= 0; --l) mlp.backward(l, w[std::size_t(l)]);
    for (int l = 0; l < mlp.layers(); ++l) {
      std::vector<float>& p = w[std::size_t(l)];
      for (std::size_t i = 0; i < p.size(); ++i) p[i] -= float(s.learning_rate) * mlp.gradient(l)[i];
    }
  }
  return w;
}

Params onebit_reference(const SyncPlan& plan, const Settings& s) {
  CpuNetwork mlp(*s.net);
  Params w = mlp.initial(s.seed);
  const int workers = plan.workers, batch = plan.batch_per_gpu * std::max(1, plan.cluster.gpus_per_node);
  std::vector<Params> worker_residual(static_cast<std::size_t>(workers));
  for (auto& r : worker_residual)
    for (const auto& p : w) r.emplace_back(p.size(), 0.0f);
  Params shard_residual;
  for (const auto& p : w) shard_residual.emplace_back(p.size(), 0.0f);
  for (int t = 0; t < std::max(1, plan.iterations); ++t) {
    std::vector<Params> grads(static_cast<std::size_t>(workers));
    for (int k = 0; k < workers; ++k) {
      mlp.begin(make_batch(s.seed, (std::int64_t(t) * workers + k) * batch, batch, mlp.features(), mlp.classes()));
      for (int l = 0; l < mlp.layers(); ++l) mlp.forward(l, w[std::size_t(l)]);
      for (int l = mlp.layers() - 1; l >= 0; --l) mlp.backward(l, w[std::size_t(l)]);
      for (int l = 0; l < mlp.layers(); ++l) grads[std::size_t(k)].push_back(mlp.gradient(l));
    }
    for (const Tensor& tensor : plan.tensors) {
      const std::size_t l = std::size_t(tensor.layer);
      const std::size_t column = std::max<std::size_t>(1, mlp.unit_inputs(tensor.layer));
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
