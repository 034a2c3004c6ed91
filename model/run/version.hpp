// possim's version: `git describe --always --dirty` of the source tree when the build was
// configured, or "unknown" where git or the history was missing (a tarball). Results record
// it so that a number can be traced to the code that computed it.
#pragma once

namespace possim {

const char* possim_version();

}  // namespace possim
