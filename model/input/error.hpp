// Errors in what the user gave us. The CLI prints what() as one line and exits 2.
#pragma once
#include <stdexcept>
#include <string>

namespace possim {

// "FILE: FIELD: PROBLEM (expected EXPECTED)" -- one line naming what and where.
class InputError : public std::runtime_error {
 public:
  InputError(const std::string& where, const std::string& field, const std::string& problem,
             const std::string& expected = "")
      : std::runtime_error(format(where, field, problem, expected)) {}
  explicit InputError(const std::string& message) : std::runtime_error(message) {}

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
