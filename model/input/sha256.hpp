// SHA-256 (FIPS 180-4) of bytes, as lowercase hex: the hash results record for their input
// files and sweeps key their points by. SHA-256 rather than a faster hash because a user
// can check it with `sha256sum FILE` against the results' provenance.
#pragma once
#include <string>

namespace possim {

std::string sha256_hex(const std::string& bytes);

}  // namespace possim
