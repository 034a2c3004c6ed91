// Fuzz target: a layer JSON. Its only reader is load_network, which takes a path, so the
// input goes through a file: that is the code a user's file meets.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "fuzz/harness.hpp"
#include "model/input/layer_json.hpp"

namespace {

struct ScratchFile {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("possim_fuzz_layer_" + std::to_string(::getpid()) + ".json");
  ~ScratchFile() { std::remove(path.c_str()); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const ScratchFile file;
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    std::ofstream(file.path, std::ios::binary | std::ios::trunc) << text;
    possim::load_network(file.path.string(), POSSIM_FUZZ_DATA_DIR);
  });
}
