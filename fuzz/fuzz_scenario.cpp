// Fuzz target: a scenario JSON (parse_scenario), with its model and profile references.
#include "fuzz/harness.hpp"
#include "model/input/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    possim::parse_scenario(text, "fuzz.json", POSSIM_FUZZ_DATA_DIR);
  });
}
