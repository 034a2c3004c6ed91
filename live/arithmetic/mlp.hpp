// A network of FC, ReLU and softmax layers evaluated for real, layer by layer, in the order
// the plan's forward and backward tasks run: forward(l) needs layer l's parameters as they
// are when its task starts, backward(l) leaves layer l's gradient and sufficient factors.
//
// Parameters of an FC layer, flattened as the plan's tensors count them: the weights
// (outputs x inputs, row-major) then the biases (outputs). The loss is the mean
// cross-entropy of the batch, so a layer's gradient is the batch mean and a worker's
// gradient is the mean over its own samples.
#pragma once
#include <string>
#include <vector>

#include "live/arithmetic/dataset.hpp"
#include "live/arithmetic/tensor.hpp"
#include "model/workload/network.hpp"

namespace possim::live::arith {

using Params = std::vector<std::vector<float>>;  // per layer (empty: no parameters)

class Mlp {
 public:
  // Throws InputError unless every layer is fc, relu or softmax, the last one softmax,
  // with matching shapes.
  explicit Mlp(const Network& net);

  int layers() const { return int(kinds_.size()); }
  int features() const { return features_; }
  int classes() const { return classes_; }
  // Glorot-uniform weights, zero biases, from `seed`.
  Params initial(std::uint64_t seed) const;

  void begin(Batch batch);  // the batch the next forward pass runs on
  void forward(int l, const std::vector<float>& params);
  void backward(int l, const std::vector<float>& params);
  double loss() const { return loss_; }  // of the batch, after the softmax's forward
  // After backward(l) of an FC layer: its gradient (flattened as its parameters) and its
  // sufficient factors: u (samples x outputs, of the batch-mean loss), v (samples x inputs);
  // gradient = [u^T v, column sums of u].
  const std::vector<float>& gradient(int l) const { return grad_[std::size_t(l)]; }
  const Matrix& u(int l) const { return u_[std::size_t(l)]; }
  const Matrix& v(int l) const { return act_[std::size_t(l)]; }
  int fc_outputs(int l) const { return out_[std::size_t(l)]; }
  int fc_inputs(int l) const { return in_[std::size_t(l)]; }

  // The gradient rebuilt from factors [u; v] stacked over contributors: sum_p u_p^T v_p and
  // sum_p colsum(u_p), scaled by `scale`, flattened as the parameters.
  static std::vector<float> rebuild(const std::vector<const Matrix*>& u, const std::vector<const Matrix*>& v,
                                    float scale);

 private:
  enum class Kind { fc, relu, softmax };
  std::vector<Kind> kinds_;
  std::vector<int> in_, out_;  // FC: inputs and outputs
  int features_ = 0, classes_ = 0;
  std::vector<Matrix> act_;    // act_[l]: layer l's input (act_[layers]: the network's output)
  std::vector<Matrix> delta_;  // delta_[l]: d loss / d (layer l's output)
  std::vector<Matrix> u_;
  std::vector<std::vector<float>> grad_;
  std::vector<int> labels_;
  double loss_ = 0;
};

}  // namespace possim::live::arith
