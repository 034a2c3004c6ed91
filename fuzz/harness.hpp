// What every fuzz target does with one input: hand it to a parser as a user's file would
// be. An InputError is the parser's answer to bad input; anything else that escapes (another
// exception, reaching std::terminate with its stack), a crash, a sanitizer report or a hang
// is a finding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "engines/builtin_engines.hpp"
#include "model/input/error.hpp"

namespace possim::fuzz {

template <class Parse>
int run_one(const std::uint8_t* data, std::size_t size, Parse parse) {
  register_builtin_engines();  // the engines a results file may name, the sections a scenario may hold
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const InputError&) {
  }
  return 0;
}

}  // namespace possim::fuzz
