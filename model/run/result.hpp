// What an engine reports for one plan: the same fields whichever engine ran it.
#pragma once
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "model/input/cluster.hpp"
#include "model/run/breakdown.hpp"

namespace possim {

struct LayerResult {
  int layer = -1;
  std::string name;
  std::string kind;
  std::string scheme;
  double params = 0;
  double ps_params = 0, sfb_params = 0, adam_params = 0;  // Table 1, per iteration
  std::string why;
  double sync_start_s = -1;  // steady iteration, from its start; -1 if the layer never syncs
  double sync_end_s = -1;
  Breakdown breakdown;  // this layer's tasks on the critical path, per steady iteration
};

// One interval on one track of the timeline (a slice of the Chrome trace).
struct TimelineEvent {
  std::string track;  // e.g. "worker 0 GPU", "node 0 NIC tx"
  std::string name;   // e.g. "b fc6", "push fc6"
  std::string category;
  double start_s = 0;
  double duration_s = 0;
  int iteration = 0;
  int layer = -1;   // the task's layer, -1 for none (barriers)
  int worker = -1;  // the worker whose task it is; -1 on shard and node tracks
  // What the trace's args show beside the above (-1: none or not one).
  double bytes = -1;  // what it moves: a copy's or flow's payload, on a NIC the sum of its flows
  int peer = -1;      // NIC tracks: the node at the other end, when its flows all share one
  int shard = -1;     // a shard's work; a flow to or from one shard
  int flows = 0;      // NIC tracks: the flows it stands for
};

// Use of one link over the run (SimGrid engine): NIC directions and PCIe links.
struct LinkUse {
  std::string link;               // e.g. "nic-3 tx"
  double bytes_per_iteration = 0;
  double peak_utilization = 0;    // highest instantaneous load / capacity
  double mean_utilization = 0;    // over the whole run
};

struct Result {
  std::string model;
  std::string strategy;
  std::string engine;
  Cluster cluster;
  int batch_per_gpu = 0;
  int iterations = 0;
  int simulated_iterations = 0;     // SimGrid: iterations run; the rest repeated the last
  int reduced_to_nodes = 0;         // SimGrid: nodes simulated when folded (sim/fold.hpp); 0: all

  double iteration_s = 0;           // steady state: mean of iterations after the first
  std::vector<double> iteration_end_s;
  // The steady iterations' durations (each after the first: end_t - end_{t-1}): the
  // smallest, the largest and their standard deviation; zeros with fewer than 2 iterations.
  struct Spread {
    double min_s = 0, max_s = 0, stdev_s = 0;
  };
  Spread iteration_spread() const;
  // Workers dropped from each iteration's step as stragglers (the plan's table, which
  // every engine runs): [iteration] -> worker indices.
  std::vector<std::vector<int>> dropped_workers;
  std::size_t dropped_worker_steps() const;
  double images_per_s = 0;
  double single_gpu_images_per_s = 0;  // baseline for speedup (same profile, one GPU)
  double speedup = 0;
  double efficiency = 0;            // speedup / GPUs
  // A 95% interval of the prediction, propagated from the profile's fit covariance
  // (calibrate/uncertainty.hpp); absent when none was (no covariance, or a measuring engine).
  struct Interval {
    double iteration_s_lo = 0, iteration_s_hi = 0;
    double images_per_s_lo = 0, images_per_s_hi = 0;
    double speedup_lo = 0, speedup_hi = 0;
  };
  std::optional<Interval> interval;
  double gpu_busy_s = 0;            // per iteration, representative (or mean) GPU
  double gpu_stall_s = 0;           // iteration_s - gpu_busy_s
  // Where the steady iteration goes (model/run/breakdown.hpp): adds up to iteration_s.
  Breakdown breakdown;
  double stall_share() const { return iteration_s > 0 ? gpu_stall_s / iteration_s : 0; }

  // Network bytes per node per iteration (off-host traffic only).
  double sent_bytes_max = 0, received_bytes_max = 0;
  double sent_bytes_mean = 0, received_bytes_mean = 0;
  double traffic_imbalance() const {  // max/mean: 1 when balanced, large at a hot spot
    const double mean = std::max(sent_bytes_mean, received_bytes_mean);
    return mean > 0 ? std::max(sent_bytes_max, received_bytes_max) / mean : 1.0;
  }

  double flows_per_iteration = 0;   // network flows simulated (SimGrid engine)
  // Live engine, arithmetic compute: each iteration's training loss (mean cross-entropy
  // of the global batch: the mean over workers of their batches'), and whether every
  // worker ended with the same parameters.
  std::vector<double> training_loss;
  bool replicas_agree = true;
  // Non-empty: the run failed, and this is what it measured before it did (partial): the
  // iterations every node had completed, with this message saying why the rest are missing.
  std::string failure;
  bool partial() const { return !failure.empty(); }

  std::vector<LayerResult> layers;
  std::vector<LinkUse> links;           // SimGrid engine only
  std::vector<TimelineEvent> timeline;  // filled when asked for

  // Fill images/s, speedup and efficiency from iteration_s and a baseline.
  void finish(double single_gpu_images_per_s_in);
};

}  // namespace possim
