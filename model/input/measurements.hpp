// Measured iteration times of a real cluster, the input of `possim calibrate fit`:
// CSV with a header row, or JSON ({"points": [...]} or a bare list). Fields:
//   model        zoo name or path to a layer JSON (relative to the file)
//   strategy     single, ps, wfbp, poseidon, tf_stock, adam, onebit, allreduce
//   nodes        worker nodes (integer >= 1)
//   nic_gbps     NIC line rate, Gbit/s (> 0)
//   iteration_s  measured seconds per iteration (> 0), or instead
//   images_per_s the whole cluster's images per second, or
//   speedup      images/s over a reference, with
//   reference_images_per_s  the reference's images/s (e.g. one GPU of stock Caffe)
//   batch        optional: images per GPU (default: the command's --batch)
//   gpus_per_node optional: default 1
//   stack        optional: the profile's software stack the point ran on (default: the
//                profile's default stack for the strategy)
//   profile      optional: the GPU profile it was measured on (e.g. titanx_maxwell); one
//                per set, what validate predicts with when --profile is not given
//   source       optional: where the number came from
//   precision    optional: how it trained (fp32, tf32, amp_fp16, amp_bf16, fp16, bf16; default
//                fp32), its gradients in the framework's default type for it
// possim's own results.csv is accepted too: its other columns are ignored (batch_per_gpu
// is the batch, and iteration_s is taken before images_per_s and speedup).
// Every malformed line or field is an InputError naming the file, the line (CSV) or the
// field path (JSON), and what was expected.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "model/input/numerics.hpp"
#include "model/workload/network.hpp"

namespace possim {

struct MeasurementPoint {
  std::string model;  // as written
  std::string strategy;
  int nodes = 1;
  double nic_gbps = 10;
  double iteration_s = 0;
  int batch = 32;
  int gpus_per_node = 1;
  std::string stack;   // "" : the profile's default for the strategy
  std::string profile;  // "" : not said
  std::string source;  // where the number came from
  Precision precision = Precision::fp32;
  // What was measured, as given: "iteration_s", "images_per_s" or "speedup" and its value
  // (iteration_s above is derived from it), and the speedup's reference.
  std::string measured_as = "iteration_s";
  double measured_value = 0;
  double reference_images_per_s = 0;
  std::string where;  // "FILE:LINE" or "FILE: points[i]"

  double images_per_iteration() const { return double(nodes) * gpus_per_node * batch; }
  // A predicted iteration time in the unit the point was measured in.
  double in_measured_unit(double iteration_s) const;
};

struct MeasurementSet {
  std::string path;
  std::vector<MeasurementPoint> points;
  std::map<std::string, Network> networks;  // model as written -> network
};

MeasurementSet load_measurements(const std::string& path, int default_batch);
// `where` names the source in errors; CSV when the text does not start with '{' or '['.
MeasurementSet parse_measurements(const std::string& text, const std::string& where,
                                  const std::string& base_dir, int default_batch);

// The profile that predicts `set`: `given` (a command's --profile, "" when absent) or the one
// its points name. Throws InputError naming the point when points name different profiles,
// or some name one and some none, and none is given; and `option` when there is none at all. `note` gets one line when a
// point names another profile than the one given.
std::string measured_profile(const MeasurementSet& set, const std::string& given, const std::string& option,
                             std::string* note = nullptr);

// Write points as CSV (the same format load_measurements reads).
std::string measurements_csv(const std::vector<MeasurementPoint>& points);

}  // namespace possim
