// The arithmetic of one node of a live run (compute "arithmetic"): what the plan's tasks
// stand for when the model is evaluated for real. The node (live/node.cpp) calls in as its
// instances run; this class knows values, never timing.
//
//   worker (node < workers)       its copy of the parameters; forward and backward of its
//                                 own batch (live/arithmetic/dataset.hpp) as the GPU tasks
//                                 complete; SFB's rebuild and update; 1-bit's quantization
//                                 with its residual; a ring all-reduce's reductions;
//   shards on the node            the master copy of each slice they hold; each worker's
//                                 push kept until the slice's apply sums them in worker
//                                 order (the same sum whatever order they landed in) and
//                                 takes the SGD step (PS), or re-quantizes the mean with
//                                 the shard's own residual (1-bit: what the pull returns).
//
// Flows carry the values: a push a slice of the gradient (or its 1-bit code), a pull the
// slice's parameters (or the quantized mean gradient), a broadcast the worker's sufficient
// factors [u; v], a ring step a segment of the vector being reduced.
#pragma once
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "live/arithmetic/cpu_network.hpp"
#include "live/arithmetic/settings.hpp"
#include "model/plan/instance_graph.hpp"

namespace possim::live::arith {

using Payload = std::shared_ptr<const std::vector<unsigned char>>;

class NodeMath {
 public:
  // Throws InputError if the plan has a step this arithmetic does not define (Adam's
  // factor pushes, trees, stragglers that are dropped).
  NodeMath(const SyncPlan& plan, const Settings& s, int node);

  void gpu_done(const Instance& in);  // forward, backward, quantize, rebuild
  // What flow `part` of `in` carries (expand_flows() order): a worker's push or broadcast,
  // or, on the node of the slice's shard, a pull's reply.
  Payload flow_out(const Instance& in, int part);
  // Flow `part` of `in` arrived here: at a shard (push), at the worker (pull; broadcast
  // from worker in.who).
  void flow_in(const Instance& in, int part, const Payload& p);
  void apply(const Instance& slice);  // a shard's apply instance, as it starts
  // A collective of worker in.who: round `round`'s send, and the arrival of a peer's send.
  Payload coll_send(const Instance& in, int round);
  void coll_arrived(const Instance& from_peer, int stream, const Payload& p);
  void coll_round_done(const Instance& in, int round);
  void coll_done(const Instance& in);

  const std::vector<double>& losses() const { return loss_; }  // per iteration (worker)
  const Params& params() const { return w_; }

 private:
  struct SliceRange {
    std::size_t offset = 0, count = 0;
  };
  const std::vector<SliceRange>& ranges(int tensor) const { return ranges_[std::size_t(tensor)]; }
  int layer_of(std::uint32_t task) const { return plan_.tasks[task].layer; }
  std::size_t column(int layer) const;
  void try_sfb_update(int t, int layer);
  std::pair<std::size_t, std::size_t> segment(int layer, int s) const;

  const SyncPlan& plan_;
  Settings s_;
  bool worker_ = false;
  bool onebit_ = false;
  int workers_ = 1;
  int batch_ = 1;
  std::optional<CpuNetwork> net_;
  Params w_;                                   // the worker's parameters
  std::vector<double> loss_;
  std::vector<std::vector<SliceRange>> ranges_;  // per tensor: each slice's floats
  std::vector<int> push_tensor_;               // per layer: its push's tensor (1-bit), or -1
  // Shard side, per (tensor, slice): the master copy; pushes by (tensor, slice, t), one per
  // worker; 1-bit: the shard's residual and its quantized mean by (tensor, slice, t).
  std::map<std::pair<int, int>, std::vector<float>> master_, shard_residual_;
  std::map<std::tuple<int, int, int>, std::vector<Payload>> pushed_;
  std::map<std::tuple<int, int, int>, Payload> reply_;
  std::map<std::tuple<int, int, int>, int> replied_;  // pulls served of each reply
  // Worker side: 1-bit residual per layer, codes of the last quantize by (tensor, slice);
  // SFB factors by (t, layer), per worker; rebuilds waiting for factors; ring buffers.
  std::vector<std::vector<float>> residual_;
  std::map<std::pair<int, int>, Payload> code_;
  std::map<std::pair<int, int>, std::vector<Payload>> factors_;
  std::map<std::pair<int, int>, bool> rebuild_due_;
  std::map<std::pair<int, std::uint32_t>, std::vector<float>> ring_;
  std::map<std::tuple<int, std::uint32_t, int, int>, std::deque<Payload>> coll_in_;  // (t, task, stream, peer)
};

}  // namespace possim::live::arith
