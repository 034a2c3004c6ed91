// Results as the ecosystem reads them: JSON and CSV (pandas). Traces: model/trace/.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/input/json_check.hpp"
#include "model/run/result.hpp"

namespace possim {

// with_timeline: include the timeline events (for passing a Result between processes).
// {"compute_s": ..., "exposed_network_s": ..., ...}: the shares in TimeShare order.
nlohmann::json breakdown_to_json(const Breakdown& b);
nlohmann::json result_to_json(const Result& r, bool with_timeline = false);
// Appends the text result_to_json(r) prints as in a dump(2) at `depth` (0: the document;
// an element of a top-level array member: 2), written without building the DOM
// (model/run/json_members.hpp).
void append_result_json(std::string& out, const Result& r, int depth);
// Inverse of result_to_json, checking every field as a reader of possim's own files must
// (the file may have been edited by hand, or be hostile): its type, its range, text as a
// printable label, names as strategies, engines and layer kinds possim knows, timeline
// events of 8 elements. One InputError naming `r`'s file, the record `at` and the field.
Result result_from_json(const nlohmann::json& j, const json_check::Reader& r, const std::string& at);
// The same for a result passed between possim's own processes (a forked simulation's).
Result result_from_json(const nlohmann::json& j);
// A finished result's images_per_s, speedup and scaling_efficiency are Result::finish's
// arithmetic on iteration_s, the batch, the GPUs and the single-GPU reference, and record
// j's stall_share and traffic_max_over_mean follow from res's fields too; a record whose
// figures disagree was edited, and a report would plot a number no run gave: InputError
// naming the field. (An engine's own result, before finish, has none of them yet.)
void check_derived_rates(const nlohmann::json& j, const Result& res, const json_check::Reader& r,
                         const std::string& at);
// A CSV field as RFC 4180 writes it: as it is, or in double quotes (doubled inside) where
// it holds a comma, a quote or a line break.
std::string csv_cell(const std::string& s);
std::string results_csv(const std::vector<Result>& results);

}  // namespace possim
