// A timeline as a Chrome trace event JSON file (opens in Perfetto and chrome://tracing).
//
// A process per node ("node 3", pid 4: node index + 1, sorted by it; a dedicated server
// node "node 9 (server)"), holding a thread per track of that node in reading order: its
// worker's GPU streams, PCIe each way, GPU-GPU, network and host CPU, the node's NIC tx and
// rx, then the shards it hosts. Process 0, named by the trace's title, holds the
// cluster's own tracks ("step sync"); the analytic engine's representative worker is one
// process. Thread names and numbers follow from the tracks alone, so a run writes the same
// bytes each time. Timestamps are microseconds with nanosecond digits, each slice's start
// and end rounded to the nanosecond so that back-to-back slices touch exactly.
//
// Concurrent slices of one track (a worker's overlapping pushes, a NIC's tasks, a shard's
// applies) go to lanes: extra threads named "node 3 NIC tx · 2", "· 3", ... placed under
// the track, each slice on the first lane free at its start. A NIC's slice is one task of
// one iteration on that NIC (all its flows: the timeline merges them, model/run/timeline.hpp),
// so a NIC direction needs a lane per task in flight, not per flow. Lanes rather than async
// slices ("b"/"e"): Perfetto's importer of 2021 (the npm package's) drops async JSON events
// without a word, and lanes stay complete ("X") slices that every viewer draws alike. No
// two slices of a thread overlap, so no viewer drops one (current Perfetto:
// slice_drop_overlapping_complete_event) or nests it under a false parent (older ones).
//
// Each slice's args: step, iteration, layer, worker, and where the record has them bytes,
// peer ("node 5": the other end of a NIC's flows when they share one), shard, flows.
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
  int nodes = 0;                // worker nodes; nodes from here on are dedicated server nodes (0: unknown)
  std::vector<int> shard_nodes;  // the node hosting each shard (empty: unknown)
};

// The file's text. "traceEvents" comes first: Perfetto's importer of 2021 (v20, the one
// the npm package ships) reads nothing of a file whose "metadata" comes before it.
std::string chrome_trace(const std::vector<TimelineEvent>& events, const TraceMeta& meta);

}  // namespace possim
