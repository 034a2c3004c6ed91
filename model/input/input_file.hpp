// Reading a user's input file whole, after checking that it is one: a regular file of at
// most limits::kMaxFileBytes. A FIFO, a device or a folder is refused before it is opened
// (a FIFO would block, /dev/zero never ends), each with one InputError naming the path.
#pragma once
#include <string>

namespace possim {

// `what` names the file in messages ("scenario file"); `expected` says what would do
// ("an existing scenario JSON").
std::string read_input_file(const std::string& path, const std::string& what,
                            const std::string& expected);

}  // namespace possim
