// A SyncPlan as JSON and back: what `possim plan-dump` writes and `possim run-plan` reads,
// and the format of the hand-written golden plans every engine must reproduce
// (tests/golden/). Reading checks every field as a reader of a user's file must (names
// of steps and resources from their tables, amounts in range, indices valid), then the
// plan's own validate() and the engines' check_plan(): a bad plan is one InputError
// naming the file and the field.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "model/plan/sync_plan.hpp"

namespace possim {

constexpr const char* kPlanFormat = "possim.plan.v1";

nlohmann::json plan_to_json(const SyncPlan& plan);
SyncPlan plan_from_json(const nlohmann::json& j, const std::string& where);
// The file at `path`, read through possim's input door (size limits, no devices).
SyncPlan load_plan(const std::string& path);

}  // namespace possim
