// Fuzz target: `possim calibrate fit` measurements, CSV or JSON (parse_measurements).
#include "model/input/measurements.hpp"
#include "fuzz/harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    possim::parse_measurements(text, "fuzz.csv", POSSIM_FUZZ_DATA_DIR, 32);
  });
}
