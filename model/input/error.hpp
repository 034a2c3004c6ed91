// Errors in what the user gave us. The CLI prints what() as one line and exits 2.
#pragma once
#include <stdexcept>
#include <string>

#include "model/input/text.hpp"

namespace possim {

// "FILE: FIELD: PROBLEM (expected EXPECTED)" -- one line naming what and where. The
// message is made printable here (printable_text: control characters, a NUL included,
// and bytes that are not UTF-8 escaped), so that what() holds all of it and a terminal
// shows it as it is.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& where, const std::string& field, const std::string& problem,
             const std::string& expected = "")
      : std::runtime_error(printable_text(format(where, field, problem, expected))) {}
  explicit InputError(const std::string& message) : std::runtime_error(printable_text(message)) {}

 private:
  static std::string format(const std::string& where, const std::string& field,
                            const std::string& problem, const std::string& expected) {
    std::string s = where;
    if (!field.empty()) s += (s.empty() ? "" : ": ") + field;
    s += ": " + problem;
    if (!expected.empty()) s += " (expected " + expected + ")";
    return s;
  }
};

}  // namespace possim
