// Checking a user's JSON document field by field: every failure is one InputError naming the
// file, the field path and what was expected. Shared by the scenario and profile readers
// (and the calibration measurement reader), so the same mistake reads the same everywhere.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace possim::json_check {

using Names = std::vector<std::string>;

// Optimal string alignment distance: insertions, deletions, substitutions and adjacent
// swaps ("vgg91" is one typo away from "vgg19", not two).
std::size_t edit_distance(const std::string& a, const std::string& b);

// "; did you mean 'x'?" for the closest name within edit distance 2 (the first of equally
// close ones), else "". Names longer than limits::kMaxQuotedChars get no hint (the
// distance costs length squared).
std::string did_you_mean(const std::string& s, const Names& names);

// User text as a message quotes it: cut to limits::kMaxQuotedChars with "..." (a 10 MB
// key makes a 10 MB message otherwise). Control characters are escaped where the
// message is printed (cli/main.cpp).
std::string quoted(const std::string& s);

// Refuses JSON text nested deeper than limits::kMaxJsonDepth (brackets outside strings),
// before anything parses or walks it recursively.
void check_depth(const std::string& text, const std::string& where);

// "a, b, c" (or joined with `sep`).
std::string list(const Names& names, const char* sep = ", ");

// Field paths: "path.key" (just "key" at the top level) and "path[i]".
std::string join(const std::string& path, const std::string& key);
std::string index(const std::string& path, std::size_t i);

// A value as an error shows it: its JSON text (cut at 40 characters) and its type,
// e.g. "\"32\" (string)".
std::string describe(const nlohmann::json& v);

// nlohmann's parse error text without its "[json.exception.parse_error.101] " prefix.
std::string parse_error_text(const nlohmann::json::parse_error& e);
// The same for any nlohmann exception ("[json.exception.out_of_range.406] " cut).
std::string exception_text(const nlohmann::json::exception& e);

// Reads one document; every failure names the file (`where`) and the field path.
class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  const std::string& where() const { return where_; }

  [[noreturn]] void fail(const std::string& field, const std::string& problem,
                         const std::string& expected = "") const;

  // The parsed document; malformed text (or nested too deep, or a number out of range,
  // e.g. 1e999) fails with "malformed JSON: ..." at the top level.
  nlohmann::json parse(const std::string& text, const std::string& expected) const;

  // Every key of `obj` is one of `known`; else "unknown field; did you mean ...".
  void only_known(const nlohmann::json& obj, const std::string& path, const Names& known) const;

  // obj[key], or "missing".
  const nlohmann::json& require(const nlohmann::json& obj, const std::string& path, const char* key,
                                const std::string& expected) const;

  // `v` itself, or "... is not an object" / "... is not a list".
  const nlohmann::json& object(const nlohmann::json& v, const std::string& path,
                               const std::string& expected) const;
  const nlohmann::json& array(const nlohmann::json& v, const std::string& path,
                              const std::string& expected) const;

  // A string (any, empty included).
  std::string text(const nlohmann::json& v, const std::string& path,
                   const std::string& expected) const;

  // A string that is a label (model/input/text.hpp: printable UTF-8, no control
  // characters) of at most max_bytes bytes: a name read back from a file, that a
  // terminal, a CSV cell or a generated script will show.
  std::string label(const nlohmann::json& v, const std::string& path, std::size_t max_bytes,
                    const std::string& expected) const;

  // A string from `options`; else "'x' is not allowed; did you mean ...".
  std::string choice(const nlohmann::json& v, const std::string& path, const Names& options) const;

  // A boolean.
  bool boolean(const nlohmann::json& v, const std::string& path, const std::string& expected) const;

  // A number in [lo, hi], or in (lo, hi] when lo_open.
  double number(const nlohmann::json& v, const std::string& path, double lo, double hi,
                const std::string& expected, bool lo_open = false) const;

  // An integer in [lo, hi].
  long long integer(const nlohmann::json& v, const std::string& path, long long lo, long long hi,
                    const std::string& expected) const;

 private:
  std::string where_;
};

}  // namespace possim::json_check
