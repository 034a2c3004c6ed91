// Fuzz target: a device sheet as `possim profile derive --device` reads it
// (parse_device_sheet).
#include "fuzz/harness.hpp"
#include "model/input/profile_derive.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    possim::parse_device_sheet(text, "fuzz.device.json");
  });
}
