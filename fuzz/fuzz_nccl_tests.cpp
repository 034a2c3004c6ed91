// Fuzz target: NCCL-tests all_reduce_perf output, as `possim collective --compare` reads it
// (parse_nccl_tests).
#include "model/input/nccl_tests.hpp"
#include "fuzz/harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) { possim::parse_nccl_tests(text, "fuzz.txt"); });
}
