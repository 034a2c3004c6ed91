// Results as the ecosystem reads them: JSON and CSV (pandas). Traces: model/trace/.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/run/result.hpp"

namespace possim {

// with_timeline: include the timeline events (for passing a Result between processes).
// {"compute_s": ..., "exposed_network_s": ..., ...}: the shares in TimeShare order.
nlohmann::json breakdown_to_json(const Breakdown& b);
nlohmann::json result_to_json(const Result& r, bool with_timeline = false);
// Inverse of result_to_json (what a forked simulation sends back). Throws on bad input.
Result result_from_json(const nlohmann::json& j);
std::string results_csv(const std::vector<Result>& results);

// Write through a temporary file and rename, so a failed run leaves nothing half-written.
// Throws std::runtime_error naming the path.
void write_file_atomic(const std::string& path, const std::string& contents);

}  // namespace possim
