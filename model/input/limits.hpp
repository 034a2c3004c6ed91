// Every limit possim puts on its input, in one place. Each is far above any real cluster,
// model or file, and low enough that a typo or a hostile file is refused before anything
// is allocated, an integer overflows or a simulation runs for days. Checks happen at the
// door (the readers, the command line) with a message naming the limit; the plan checks
// (model/plan_check.hpp) catch what only the combination of inputs makes too large.
#pragma once
#include <cstddef>
#include <cstdint>

namespace possim::limits {

// Files: scenarios, profiles, layer JSON and measurements are kilobytes; 64 MiB leaves
// room for a measured profile of a huge model and stops /dev/zero.
constexpr std::uint64_t kMaxFileBytes = 64ull << 20;
// Real documents nest 5 levels; the bound keeps every recursive walk (dump, compare,
// destroy) far from the stack's end.
constexpr int kMaxJsonDepth = 64;
// User text quoted in an error message is cut here, and the did-you-mean hint (edit
// distance, O(length^2)) is only computed for names this short.
constexpr std::size_t kMaxQuotedChars = 64;

// Names read back from files (a model's and its layers' names in layer JSON and results,
// a strategy, a link, a trace track): printable text (model/input/text.hpp) of at most
// this many bytes. Longer notes (a layer's "why", a run's failure) at most kMaxNoteChars.
constexpr std::size_t kMaxLabelChars = 256;
constexpr std::size_t kMaxNoteChars = 4096;

// Scenario names become file and folder names: at most this long, letters, digits, '.',
// '_' and '-' only (not "." or "..").
constexpr std::size_t kMaxNameChars = 128;

// Clusters. The largest clusters trained data-parallel have a few thousand nodes; 65536
// nodes x 64 GPUs still fits an int with room for the products engines form.
constexpr long long kMaxNodes = 65536;
constexpr long long kMaxGpusPerNode = 64;
constexpr long long kMaxGpus = 1ll << 20;  // nodes x GPUs per node
constexpr long long kMaxShards = 65536;
// NIC line rates and latency a scenario or a measurement may give, and a GPU's batch. A node
// of 8 x 400 Gbit/s NICs is 3,200 Gbit/s; possim gives the node one NIC of its whole rate.
constexpr double kMinNicGbps = 0.1, kMaxNicGbps = 3200;
constexpr double kMaxLatencyS = 1;
constexpr long long kMaxBatchPerGpu = 65536;
// Sweeps: values per axis (nodes, nic_gbps) and points in all (strategies x nodes x
// bandwidths). Each point is a simulation; more is a batch job, not one scenario.
constexpr std::size_t kMaxSweepValues = 1000;
constexpr std::size_t kMaxSweepPoints = 10000;
// A sweep file's axes: the scenario fields it may vary (model/sweep_grid.hpp).
constexpr std::size_t kMaxSweepAxes = 16;
// A sweep's finished points (points.jsonl) as possim reads them back to resume or merge:
// 10000 points of a 150-layer model with every layer's row take about 500 MB.
constexpr std::uint64_t kMaxPointsFileBytes = 1ull << 30;
// Iterations simulated per point: the steady state shows after a few.
constexpr long long kMaxIterations = 10000;

// Models. 1e12 parameters is 4 TB of fp32 weights in one layer; the sum over 100000
// layers stays below 2^63 however the layer counts add up.
constexpr long long kMaxLayers = 100000;
constexpr long long kMaxParamsPerLayer = 1000000000000ll;  // 1e12
constexpr long long kMaxShapeElements = 1ll << 40;           // channels x height x width
constexpr double kMaxFlopsPerImage = 1e18;                   // one layer, one direction
// KV pairs of all tensors of one plan (each is a message, and each shard's share is
// dealt pair by pair): 1e7 pairs is 20 TB at the default 2 MiB pair.
constexpr long long kMaxKvPairs = 10000000;

// Plans. Any task taking longer than this (about 116 days) means a unit slip or an
// absurd rate; refusing it keeps non-finite numbers out of results and out of SimGrid.
constexpr double kMaxTaskSeconds = 1e7;
// The SimGrid engine keeps state per task instance (task x worker or slice x iteration)
// and an activity per flow: beyond these it needs gigabytes and hours.
constexpr std::uint64_t kMaxTaskInstances = 20000000;
constexpr std::uint64_t kMaxFlowsPerIteration = 10000000;

}  // namespace possim::limits
