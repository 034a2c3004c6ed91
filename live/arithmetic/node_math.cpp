#include "live/arithmetic/node_math.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "live/arithmetic/onebit.hpp"
#include "model/input/error.hpp"

namespace possim::live::arith {

namespace {

Payload floats(const float* p, std::size_t n) {
  auto v = std::make_shared<std::vector<unsigned char>>(n * sizeof(float));
  if (n) std::memcpy(v->data(), p, n * sizeof(float));
  return v;
}

void expect_floats(const Payload& p, std::size_t n, const char* what) {
  if (!p || p->size() != n * sizeof(float))
    throw std::runtime_error(std::string("live arithmetic: a ") + what + " of " +
                             std::to_string(p ? p->size() : 0) + " bytes where " + std::to_string(n) +
                             " floats were expected");
}

const float* as_floats(const Payload& p) { return reinterpret_cast<const float*>(p->data()); }

}  // namespace

NodeMath::NodeMath(const SyncPlan& plan, const Settings& s, int node) : plan_(plan), s_(s) {
  const Network& net = *s.net;
  const auto refuse = [&](const std::string& what) {
    throw InputError("strategy", plan.strategy, what,
                     "arithmetic compute runs ps, wfbp, poseidon (PS and SFB layers), onebit, allreduce "
                     "(ring) and tf_stock, without dropped stragglers");
  };
  if (net.layers.size() != plan.layers.size()) refuse("the plan is not of this network");
  net_.emplace(net);
  workers_ = plan.workers;
  worker_ = node < plan.workers;
  batch_ = plan.batch_per_gpu * std::max(1, plan.cluster.gpus_per_node);
  for (const auto& row : plan.stragglers.dropped)
    for (char d : row)
      if (d) refuse("stragglers are dropped from steps, which changes the arithmetic of SGD");
  // It computes and sends fp32 values: a plan whose gradients, parameters or factors travel
  // in a 16-bit type would move values of another size than the plan's bytes.
  for (const Task& t : plan.tasks)
    if (t.dtype == DType::fp16 || t.dtype == DType::bf16)
      throw InputError("precision", to_string(t.dtype),
                       "arithmetic compute sends fp32 values, and this plan's " + std::string(to_string(t.carries)) +
                           " travel in " + to_string(t.dtype),
                       "precision fp32, tf32 or amp with gradient_dtype fp32 and no factors (or \"compute\": \"emulated\")");
  w_ = net_->initial(s.seed);

  // Each tensor's slices as consecutive ranges of its layer's flattened parameters.
  for (const Tensor& t : plan.tensors) {
    std::vector<SliceRange> r;
    std::size_t at = 0;
    for (const Slice& sl : t.slices) {
      const double n = sl.bytes / sizeof(float);
      if (n != std::floor(n)) refuse("a slice of layer " + plan.layers[std::size_t(t.layer)].name + " is not whole floats");
      r.push_back(SliceRange{at, std::size_t(n)});
      at += std::size_t(n);
    }
    if (at != w_[std::size_t(t.layer)].size())
      refuse("the " + plan.strategy + " plan moves " + std::to_string(at) + " values of layer " +
             plan.layers[std::size_t(t.layer)].name + " through shards, not its " +
             std::to_string(w_[std::size_t(t.layer)].size()) + " parameters (Adam's factors?)");
    ranges_.push_back(std::move(r));
  }
  push_tensor_.assign(plan.layers.size(), -1);
  for (const Task& t : plan.tasks) {
    if (t.resource == Resource::gpu && !t.pass() && t.step != Step::quantize && t.step != Step::rebuild &&
        t.step != Step::optimizer)  // the optimizer step: timing only, the update is the sync's
      refuse(std::string("GPU step '") + to_string(t.step) + "' has no arithmetic here");
    if (t.step == Step::apply && t.scope != Scope::shard)
      refuse("an update applied off the parameter-server shards has no arithmetic here");
    if (t.carries == possim::Payload::quantized) onebit_ = true;  // 1-bit values through the shards
    if (t.resource == Resource::network && t.pattern == FlowPattern::collective && t.collective != CollectiveKind::ring)
      refuse("only the ring all-reduce has arithmetic here");
    if (t.resource == Resource::network && t.pattern == FlowPattern::to_shards) push_tensor_[std::size_t(t.layer)] = t.tensor;
  }
  // Shards on this node start from the same initial parameters.
  for (std::size_t ti = 0; ti < plan.tensors.size(); ++ti) {
    const Tensor& t = plan.tensors[ti];
    for (std::size_t k = 0; k < t.slices.size(); ++k) {
      if (plan.shard_node(t.slices[k].shard) != node) continue;
      const SliceRange& r = ranges_[ti][k];
      const auto& w = w_[std::size_t(t.layer)];
      master_[{int(ti), int(k)}] = std::vector<float>(w.begin() + long(r.offset), w.begin() + long(r.offset + r.count));
      shard_residual_[{int(ti), int(k)}] = std::vector<float>(r.count, 0.0f);
    }
  }
  residual_.resize(w_.size());
  for (std::size_t l = 0; l < w_.size(); ++l) residual_[l].assign(w_[l].size(), 0.0f);
}

std::size_t NodeMath::column(int layer) const { return std::max<std::size_t>(1, net_->unit_inputs(layer)); }

void NodeMath::gpu_done(const Instance& in) {
  const Task& task = plan_.tasks[in.task];
  const int l = task.layer;
  const std::vector<float>& w = w_[std::size_t(l)];
  if (task.step == Step::forward) {
    if (l == 0)
      net_->begin(make_batch(s_.seed, (std::int64_t(in.t) * workers_ + in.who) * batch_, batch_, net_->features(),
                             net_->classes()));
    net_->forward(l, w);
    if (l + 1 == net_->layers()) {
      if (loss_.size() <= std::size_t(in.t)) loss_.resize(std::size_t(in.t) + 1, 0);
      loss_[std::size_t(in.t)] = net_->loss();
    }
  } else if (task.step == Step::backward) {
    net_->backward(l, w);
  } else if (task.step == Step::quantize) {
    const int tensor = push_tensor_[std::size_t(l)];
    const std::vector<float>& g = net_->gradient(l);
    for (std::size_t k = 0; k < ranges(tensor).size(); ++k) {
      const SliceRange& r = ranges(tensor)[k];
      code_[{tensor, int(k)}] = std::make_shared<std::vector<unsigned char>>(
          quantize(g.data() + r.offset, residual_[std::size_t(l)].data() + r.offset, r.count, r.offset, column(l)));
    }
  } else if (task.step == Step::rebuild) {
    rebuild_due_[{in.t, l}] = true;
    try_sfb_update(in.t, l);
  }
}

Payload NodeMath::flow_out(const Instance& in, int part) {
  const Task& task = plan_.tasks[in.task];
  const int l = task.layer;
  switch (task.pattern) {
    case FlowPattern::to_shards: {
      if (onebit_) return code_.at({task.tensor, part});
      const SliceRange& r = ranges(task.tensor)[std::size_t(part)];
      return floats(net_->gradient(l).data() + r.offset, r.count);
    }
    case FlowPattern::from_shards: {
      if (onebit_) {  // every worker pulls the quantized mean once: the last pull frees it
        const auto key = std::make_tuple(task.tensor, part, in.t);
        const Payload p = reply_.at(key);
        if (++replied_[key] == workers_) reply_.erase(key), replied_.erase(key);
        return p;
      }
      const auto& m = master_.at({task.tensor, part});
      return floats(m.data(), m.size());
    }
    case FlowPattern::to_peers: {
      auto& mine = factors_[{in.t, l}];
      mine.resize(std::size_t(workers_));
      if (!mine[std::size_t(in.who)]) {
        const Matrix& u = net_->u(l);
        const Matrix& v = net_->v(l);
        auto p = std::make_shared<std::vector<unsigned char>>((u.size() + v.size()) * sizeof(float));
        std::memcpy(p->data(), u.data(), std::size_t(u.size()) * sizeof(float));
        std::memcpy(p->data() + std::size_t(u.size()) * sizeof(float), v.data(), std::size_t(v.size()) * sizeof(float));
        mine[std::size_t(in.who)] = p;
      }
      return mine[std::size_t(in.who)];
    }
    default: break;
  }
  throw std::logic_error(std::string("live arithmetic: no values for a ") + to_string(task.step) + " flow");
}

void NodeMath::flow_in(const Instance& in, int part, const Payload& p) {
  const Task& task = plan_.tasks[in.task];
  const int l = task.layer;
  switch (task.pattern) {
    case FlowPattern::to_shards: {
      const SliceRange& r = ranges(task.tensor)[std::size_t(part)];
      if (onebit_) {
        if (!p || p->size() != quantized_bytes(r.count, r.offset, column(l)))
          throw std::runtime_error("live arithmetic: a 1-bit push of the wrong size");
      } else {
        expect_floats(p, r.count, "push");
      }
      auto& got = pushed_[{task.tensor, part, in.t}];
      got.resize(std::size_t(workers_));
      got[std::size_t(in.who)] = p;
      return;
    }
    case FlowPattern::from_shards: {
      const SliceRange& r = ranges(task.tensor)[std::size_t(part)];
      float* w = w_[std::size_t(l)].data() + r.offset;
      if (onebit_) {
        dequantize_add(p->data(), p->size(), w, r.count, r.offset, column(l), float(-s_.learning_rate));
      } else {
        expect_floats(p, r.count, "pull");
        std::memcpy(w, p->data(), r.count * sizeof(float));
      }
      return;
    }
    case FlowPattern::to_peers: {
      const std::size_t n = std::size_t(batch_) * std::size_t(net_->fc_outputs(l) + net_->fc_inputs(l));
      expect_floats(p, n, "broadcast of factors");
      auto& f = factors_[{in.t, l}];
      f.resize(std::size_t(workers_));
      f[std::size_t(in.who)] = p;
      try_sfb_update(in.t, l);
      return;
    }
    default: break;
  }
  throw std::logic_error(std::string("live arithmetic: a ") + to_string(task.step) + " flow has no values");
}

void NodeMath::apply(const Instance& slice) {
  const Task& task = plan_.tasks[slice.task];
  const int tensor = task.tensor, k = slice.who;
  const SliceRange& r = ranges(tensor)[std::size_t(k)];
  auto it = pushed_.find({tensor, k, slice.t});
  if (it == pushed_.end()) throw std::logic_error("live arithmetic: an apply before any push");
  std::vector<float> mean(r.count, 0.0f);
  const float share = 1.0f / float(workers_);
  for (const Payload& p : it->second) {  // worker order: the same sum whatever order they landed in
    if (!p) throw std::logic_error("live arithmetic: an apply before every worker's push");
    if (onebit_) {
      dequantize_add(p->data(), p->size(), mean.data(), r.count, r.offset, column(task.layer), share);
    } else {
      const float* g = as_floats(p);
      for (std::size_t i = 0; i < r.count; ++i) mean[i] += g[i];
    }
  }
  pushed_.erase(it);
  if (onebit_) {
    reply_[{tensor, k, slice.t}] = std::make_shared<std::vector<unsigned char>>(
        quantize(mean.data(), shard_residual_.at({tensor, k}).data(), r.count, r.offset, column(task.layer)));
    return;
  }
  sgd_step(master_.at({tensor, k}).data(), mean.data(), r.count, float(s_.learning_rate) * share);
}

void NodeMath::try_sfb_update(int t, int l) {
  const auto due = rebuild_due_.find({t, l});
  const auto f = factors_.find({t, l});
  if (due == rebuild_due_.end() || f == factors_.end() || int(f->second.size()) < workers_) return;
  for (const Payload& p : f->second)
    if (!p) return;
  const int m = net_->fc_outputs(l), n = net_->fc_inputs(l);
  std::vector<Matrix> u, v;
  for (const Payload& p : f->second) {
    const float* x = as_floats(p);
    u.emplace_back(Eigen::Map<const Matrix>(x, batch_, m));
    v.emplace_back(Eigen::Map<const Matrix>(x + std::size_t(batch_) * std::size_t(m), batch_, n));
  }
  std::vector<const Matrix*> up, vp;
  for (std::size_t i = 0; i < u.size(); ++i) up.push_back(&u[i]), vp.push_back(&v[i]);
  const std::vector<float> g = CpuNetwork::rebuild(up, vp, 1.0f / float(workers_));
  sgd_step(w_[std::size_t(l)].data(), g.data(), g.size(), float(s_.learning_rate));
  rebuild_due_.erase(due);
  factors_.erase(f);
}

// Ring segments: [s n / P, (s + 1) n / P).
std::pair<std::size_t, std::size_t> NodeMath::segment(int layer, int s) const {
  const std::size_t n = w_[std::size_t(layer)].size(), p = std::size_t(workers_);
  return {std::size_t(s) * n / p, (std::size_t(s) + 1) * n / p};
}

// Ring rounds of worker w among P: reduce-scatter rounds r < P-1 send segment w-r and add
// segment w-r-1 from w-1; all-gather rounds j = r-(P-1) send segment w+1-j and copy
// segment w-j (collective.cpp's ring: every round sends to w+1, receives from w-1).
Payload NodeMath::coll_send(const Instance& in, int round) {
  const int l = layer_of(in.task), p = workers_;
  auto& buf = ring_[{in.t, in.task}];
  if (buf.empty()) buf = net_->gradient(l);
  const int seg = round < p - 1 ? in.who - round : in.who + 1 - (round - (p - 1));
  const auto [b, e] = segment(l, ((seg % p) + p) % p);
  return floats(buf.data() + b, e - b);
}

void NodeMath::coll_arrived(const Instance& from_peer, int stream, const Payload& p) {
  coll_in_[{from_peer.t, from_peer.task, stream, from_peer.who}].push_back(p);
}

void NodeMath::coll_round_done(const Instance& in, int round) {
  const int l = layer_of(in.task), p = workers_;
  const int from = (in.who + p - 1) % p;
  auto q = coll_in_.find({in.t, in.task, 0, from});
  if (q == coll_in_.end() || q->second.empty()) throw std::logic_error("live arithmetic: a ring round without its values");
  const Payload got = q->second.front();
  q->second.pop_front();
  if (q->second.empty()) coll_in_.erase(q);
  auto& buf = ring_.at({in.t, in.task});
  const bool reduce = round < p - 1;
  const int seg = reduce ? in.who - round - 1 : in.who - (round - (p - 1));
  const auto [b, e] = segment(l, ((seg % p) + p) % p);
  expect_floats(got, e - b, "ring segment");
  const float* x = as_floats(got);
  for (std::size_t i = b; i < e; ++i) buf[i] = reduce ? buf[i] + x[i - b] : x[i - b];
}

void NodeMath::coll_done(const Instance& in) {
  const int l = layer_of(in.task);
  const auto it = ring_.find({in.t, in.task});
  const std::vector<float>& sum = it != ring_.end() ? it->second : net_->gradient(l);  // one worker: its own
  sgd_step(w_[std::size_t(l)].data(), sum.data(), sum.size(), float(s_.learning_rate) / float(workers_));
  if (it != ring_.end()) ring_.erase(it);
}

}  // namespace possim::live::arith
