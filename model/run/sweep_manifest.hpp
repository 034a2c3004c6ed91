// A sweep's folder: points.jsonl (model/point_store.hpp), sweep.json (this manifest: the
// whole grid's point keys and values, the shard this folder holds and the provenance), and
// results.csv and results.json of the folder's points, written when they are all done.
// The manifest is what `possim sweep merge` needs to put shards back together without the
// sweep file, and to tell that folders are shards of one sweep.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/run/point_store.hpp"
#include "model/run/sweep_grid.hpp"

namespace possim {

struct ManifestPoint {
  std::string key;
  nlohmann::json values;
};

struct SweepManifest {
  std::string name, engine;
  nlohmann::json provenance;
  std::vector<std::string> axes;
  std::vector<ManifestPoint> points;  // the whole grid, in order
  int shard_index = 0, shard_count = 1;

  bool in_shard(std::size_t i) const { return int(i % std::size_t(shard_count)) == shard_index; }
  // sha256 over the point keys in order: the same for every shard of one sweep.
  std::string grid_key() const;
  // Points of this shard that have no record.
  std::vector<std::size_t> missing(const PointRecords& records) const;
  // For read_points: a record whose key is one of these points must carry that point's
  // values, and a result of its strategy (a line edited by hand to claim another point
  // is refused, naming FILE:LINE). Records of other keys are left as they are.
  RecordCheck record_check() const;
};

SweepManifest manifest_of(const SweepGrid& grid, int shard_index, int shard_count);

// sweep.json, written and read back (checked like every input: one InputError naming the
// file and the field).
std::string manifest_json(const SweepManifest& m);
SweepManifest read_manifest(const std::string& path);

// The folder's files for the shard's points, in grid order; every one needs a record.
// results.csv: possim run's columns, then a column for each axis those columns do not
// show (kv_pair_bytes, staleness, seed). results.json: possim run's, each result with its
// point's values and key.
std::string sweep_results_csv(const SweepManifest& m, const PointRecords& records);
std::string sweep_results_json(const SweepManifest& m, const PointRecords& records);
// points.jsonl holding exactly the shard's records, in grid order (a merged folder's).
std::string sweep_points_jsonl(const SweepManifest& m, const PointRecords& records);

}  // namespace possim
