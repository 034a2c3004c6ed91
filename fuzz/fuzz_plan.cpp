// Fuzz target: a plan JSON (plan_from_json: possim plan-dump's output, or a hand-written
// plan for possim run-plan), with the plan's own checks.
#include "fuzz/harness.hpp"
#include "model/input/json_check.hpp"
#include "model/run/plan_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    const possim::json_check::Reader r("fuzz.json");
    possim::plan_from_json(r.parse(text, "a plan JSON object"), "fuzz.json");
  });
}
