// Measured iteration times of a real cluster, the input of `possim calibrate fit`:
// CSV with a header row, or JSON ({"points": [...]} or a bare list). Fields:
//   model        zoo name or path to a layer JSON (relative to the file)
//   strategy     single, ps, wfbp, poseidon, tf_stock, adam, onebit, allreduce
//   nodes        worker nodes (integer >= 1)
//   nic_gbps     NIC line rate, Gbit/s (> 0)
//   iteration_s  measured seconds per iteration (> 0)
//   batch        optional: images per GPU (default: the command's --batch)
//   gpus_per_node optional: default 1
// Every malformed line or field is an InputError naming the file, the line (CSV) or the
// field path (JSON), and what was expected.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "model/network.hpp"

namespace possim::calibrate {

struct MeasurementPoint {
  std::string model;  // as written
  std::string strategy;
  int nodes = 1;
  double nic_gbps = 10;
  double iteration_s = 0;
  int batch = 32;
  int gpus_per_node = 1;
  std::string where;  // "FILE:LINE" or "FILE: points[i]"
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

// Write points as CSV (the same format load_measurements reads).
std::string measurements_csv(const std::vector<MeasurementPoint>& points);

}  // namespace possim::calibrate
