// Fuzz target: a profile JSON (parse_profile).
#include "fuzz/harness.hpp"
#include "model/input/profile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    possim::parse_profile(text, "fuzz.profile.json");
  });
}
