#include "model/plan/step.hpp"

#include <array>

namespace possim {

namespace {

struct StepInfo {
  const char* name;
  const char* colour;  // Catapult's reserved names: compute, copies, flows, server work apart
};

constexpr std::array<StepInfo, kSteps> kStepInfo = {{
    {"forward", "thread_state_iowait"},
    {"backward", "thread_state_running"},
    {"rebuild", "olive"},
    {"quantize", "olive"},
    {"copy_d2h", "grey"},
    {"copy_h2d", "grey"},
    {"gather", "grey"},
    {"scatter", "grey"},
    {"reduce_scatter", "generic_work"},
    {"all_gather", "generic_work"},
    {"push", "rail_response"},
    {"pull", "rail_animation"},
    {"broadcast", "rail_load"},
    {"allreduce", "rail_load"},
    {"apply", "terrible"},
    {"factors_in", "generic_work"},
    {"barrier", "generic_work"},
    {"optimizer", "thread_state_running"},
}};

}  // namespace

const char* to_string(Step s) { return kStepInfo[std::size_t(s)].name; }

std::optional<Step> step_from_string(const std::string& name) {
  for (std::size_t i = 0; i < kSteps; ++i)
    if (name == kStepInfo[i].name) return Step(i);
  return {};
}

const char* trace_colour(Step s) { return kStepInfo[std::size_t(s)].colour; }

const char* to_string(Payload p) {
  static const char* names[] = {"none", "gradient", "parameters", "factors", "quantized"};
  return names[std::size_t(p)];
}

}  // namespace possim
