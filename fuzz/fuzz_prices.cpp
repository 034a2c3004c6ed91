// Fuzz target: a prices file as `possim plan --prices` reads it (parse_prices).
#include "fuzz/harness.hpp"
#include "model/planning/prices.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    possim::parse_prices(text, "fuzz.prices.json");
  });
}
