// Fuzz target: a sweep's points.jsonl as a resumed sweep or `possim sweep merge` reads it
// (parse_points).
#include "fuzz/harness.hpp"
#include "model/run/point_store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    possim::parse_points(text, "fuzz.points.jsonl");
  });
}
