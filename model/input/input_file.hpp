// Reading a user's input file whole, after checking that it is one: a regular file of at
// most limits::kMaxFileBytes. A FIFO, a device or a folder is refused before it is opened
// (a FIFO would block, /dev/zero never ends), each with one InputError naming the path.
#pragma once
#include <cstdint>
#include <string>

#include "model/input/limits.hpp"

namespace possim {

// What a non-regular file is, as a message says it ("a FIFO", "a symlink", ...).
const char* file_kind(unsigned mode);

// `what` names the file in messages ("scenario file"); `expected` says what would do
// ("an existing scenario JSON"). `max_bytes` is for files possim writes itself and reads
// back (a sweep's finished points), which grow with the sweep.
std::string read_input_file(const std::string& path, const std::string& what,
                            const std::string& expected,
                            std::uint64_t max_bytes = limits::kMaxFileBytes);

}  // namespace possim
