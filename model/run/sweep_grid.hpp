// A sweep file: a base scenario and axes that vary its fields, expanded to a cartesian grid
// of one-point scenarios, each keyed by a hash of everything its result depends on (so that
// a rerun knows which points it already has).
//
//   {
//     "name": "vgg19_bandwidth_gpus",        optional; default: the file's stem
//     "description": "...",                  optional
//     "base": "../vgg19_10gbe.json",         a scenario file, relative to the sweep file, or
//     "scenario": { ... },                   a scenario inline (its paths relative to the sweep file)
//     "axes": { "cluster.nic_gbps": [1, 10, 40], "strategies": ["wfbp", "poseidon"] }
//   }
//
// Axes are named by the scenario's own field paths (sweep_axes()); each is one value or a
// list of distinct ones. A base scenario's own lists (strategies, cluster.nodes,
// cluster.nic_gbps) are axes too unless the sweep names them. The grid nests the axes in
// sweep_axes() order, the last varying fastest, whatever order the file gives them in.
#pragma once
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/run/engine.hpp"
#include "model/input/scenario.hpp"
#include "model/run/sweep.hpp"

namespace possim {

// "model", "batch_per_gpu", "strategies", "cluster.nodes", "cluster.gpus_per_node",
// "cluster.nic_gbps", "cluster.latency_s", "cluster.servers.shards",
// "strategy_options.kv_pair_bytes", "strategy_options.staleness", "seed".
const std::vector<std::string>& sweep_axes();

// What, beyond the scenario, decides a point's numbers: part of every point's key.
struct RunIdentity {
  std::string engine;
  bool all_iterations = false;
};

struct GridPoint {
  std::size_t index = 0;       // in the whole grid
  nlohmann::json values;       // axis -> value, every axis of the grid
  std::string scenario_json;   // the base with those values: a scenario of exactly one point
  std::string key;             // sha256 of the point's inputs, the run identity and possim's version
  std::string baseline_key;    // the same for the single-GPU reference its speedup is over
};

struct SweepGrid {
  std::string path;         // the sweep file
  std::string sha256;       // of its bytes
  std::string name, description;
  std::string base_path;    // the base scenario file; "" when inline
  std::string base_sha256;  // of its bytes; "" when inline
  std::string base_dir;     // the folder the points' relative paths resolve against
  RunIdentity identity;
  std::vector<std::string> axes;  // grid order
  std::vector<GridPoint> points;
  std::size_t merged = 0;   // grid points identical to an earlier one (single at several node counts)
  nlohmann::json provenance;  // as provenance_json, plus the sweep file and the base scenario
  std::vector<std::string> caveats;  // the engine's distinct caveats (EngineInfo::caveat) about the points

  // The point's scenario, parsed again (points keep only their JSON text: a parsed scenario
  // holds its profile and model, too much to keep for 10000 points).
  Scenario scenario(std::size_t i) const;
  // "point 3 (strategies=wfbp, cluster.nic_gbps=10)".
  std::string describe(std::size_t i) const;
};

// Reads and checks the sweep file and every point's scenario (a bad value is an InputError
// naming the sweep file and the point) before anything runs.
SweepGrid load_sweep(const std::string& path, const RunIdentity& identity);
SweepGrid parse_sweep(const std::string& text, const std::string& where, const std::string& dir,
                      const RunIdentity& identity);

// Single-GPU references, computed once per baseline key and shared by the points that
// have it. Thread-safe.
class BaselineCache {
 public:
  double get(const SweepGrid& grid, std::size_t i, const Engine& engine);

 private:
  std::mutex mutex_;
  std::map<std::string, double> images_per_s_;
};

// What a caller adds to a point's result from the point's own scenario (its intervals).
using RefinePoint = std::function<void(const Scenario&, const SweepPoint&, Result&)>;

// Runs grid point i, then `refine` on it; a failure is rethrown with the point named first.
Result run_grid_point(const SweepGrid& grid, std::size_t i, const Engine& engine,
                      const PointOptions& opt, BaselineCache& baselines, const RefinePoint& refine = {});

}  // namespace possim
