// Which points of a sweep `possim run --trace` traces, what each trace file is called,
// and what its header says.
#pragma once
#include <string>
#include <vector>

#include "model/run/result.hpp"
#include "model/input/scenario.hpp"
#include "model/run/sweep.hpp"
#include "model/trace/chrome_trace.hpp"
#include "model/run/worker_selection.hpp"

namespace possim {

// Each item "STRATEGY:NODES:GBPS" must name a point of `sweep` (InputError naming
// `option` otherwise); the points in sweep order, each once.
std::vector<SweepPoint> parse_trace_points(const std::vector<std::string>& items,
                                           const std::vector<SweepPoint>& sweep, const std::string& option);

// A bandwidth as file names write it: the shortest decimal that reads back as the same
// number, '.' as 'p' (0.5 -> "0p5", 10 -> "10", 2.5e-05 -> "2p5em05").
std::string gbps_for_file_name(double gbps);

// "trace_poseidon_8n_10g_1gpu.json": strategy, nodes, Gbit/s, GPUs per node.
std::string trace_file_name(const Result& r);

// The trace's title, which workers it holds (`traced` for the SimGrid engine; the
// analytic engine's one representative worker), and the point's fields.
TraceMeta trace_meta(const Scenario& s, const Result& r, const WorkerSelection& traced);

}  // namespace possim
