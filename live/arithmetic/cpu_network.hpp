// A network evaluated for real on the CPU (fp32, Eigen), layer by layer, in the order the
// plan's forward and backward tasks run: forward(l) uses layer l's parameters as they are
// when its task completes, backward(l) leaves layer l's gradient (and, for an FC layer, its
// sufficient factors). Layers: conv (groups 1), max and average pooling (Caffe's windows,
// ceil-rounded sizes), fc, relu and a final softmax; enough for an MLP and CIFAR-10 quick.
//
// Activations are one row per sample, channels x height x width within it. Parameters of a
// conv or FC layer are flattened as the plan's tensors count them: the weights (outputs x
// inputs per output, row-major) then the biases. The loss is the mean cross-entropy of
// the batch, so a gradient is the batch mean, and a worker's the mean over its samples.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "live/arithmetic/dataset.hpp"
#include "live/arithmetic/tensor.hpp"
#include "model/workload/network.hpp"

namespace possim::live::arith {

using Params = std::vector<std::vector<float>>;  // per layer (empty: no parameters)

// Plain SGD's step on n parameters: w -= step * g (step: the learning rate, times any
// averaging the caller folds in).
inline void sgd_step(float* w, const float* g, std::size_t n, float step) {
  for (std::size_t i = 0; i < n; ++i) w[i] -= step * g[i];
}

class CpuNetwork {
 public:
  // Throws InputError naming the layer unless every layer is one of the kinds above with
  // consistent shapes, the last a softmax.
  explicit CpuNetwork(const Network& net);

  int layers() const { return int(layers_.size()); }
  int features() const { return features_; }
  int classes() const { return classes_; }
  // Inputs each output unit of a conv or FC layer weighs (a row of its weight matrix).
  std::size_t unit_inputs(int l) const;
  // Glorot-uniform weights, zero biases, from `seed`.
  Params initial(std::uint64_t seed) const;

  void begin(Batch batch);  // the batch the next forward pass runs on
  void forward(int l, const std::vector<float>& params);
  void backward(int l, const std::vector<float>& params);
  double loss() const { return loss_; }  // of the batch, after the softmax's forward
  const std::vector<float>& gradient(int l) const { return grad_[std::size_t(l)]; }
  // FC layers, after backward(l): u (samples x outputs, of the batch-mean loss) and v
  // (samples x inputs); the gradient is [u^T v, column sums of u].
  const Matrix& u(int l) const { return u_[std::size_t(l)]; }
  const Matrix& v(int l) const { return act_[std::size_t(l)]; }
  int fc_outputs(int l) const { return int(layers_[std::size_t(l)].out.elements()); }
  int fc_inputs(int l) const { return int(layers_[std::size_t(l)].in.elements()); }

  // sum_p u_p^T v_p and sum_p colsum(u_p), times `scale`, flattened as FC parameters.
  static std::vector<float> rebuild(const std::vector<const Matrix*>& u, const std::vector<const Matrix*>& v,
                                    float scale);

 private:
  void conv_forward(int l, const std::vector<float>& params);
  void conv_backward(int l, const std::vector<float>& params, Matrix* d_in);
  void pool_forward(int l);
  void pool_backward(int l, Matrix* d_in);

  std::vector<Layer> layers_;
  int features_ = 0, classes_ = 0;
  std::vector<Matrix> act_;    // act_[l]: layer l's input (act_[layers]: the network's output)
  std::vector<Matrix> delta_;  // delta_[l]: d loss / d (layer l's output)
  std::vector<Matrix> u_;
  std::vector<std::vector<float>> grad_;
  std::vector<std::vector<int>> argmax_;  // max pooling: the input each output took
  std::vector<int> labels_;
  double loss_ = 0;
};

}  // namespace possim::live::arith
