#include "model/input/json_check.hpp"

#include <algorithm>
#include <cstdio>

#include "model/input/error.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"

namespace possim::json_check {

using nlohmann::json;

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

std::string did_you_mean(const std::string& s, const Names& names) {
  std::string best;
  std::size_t best_d = 3;  // suggest only within edit distance 2
  if (s.size() > limits::kMaxQuotedChars) return "";
  for (const auto& n : names) {
    if (n.size() > s.size() + 2 || s.size() > n.size() + 2) continue;  // distance > 2
    const std::size_t d = edit_distance(s, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}

std::string quoted(const std::string& s) {
  if (s.size() <= limits::kMaxQuotedChars) return s;
  return s.substr(0, limits::kMaxQuotedChars - 3) + "...";
}

void check_depth(const std::string& text, const std::string& where) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits::kMaxJsonDepth)
        throw InputError(where, "",
                         "malformed JSON: nested deeper than " +
                             std::to_string(limits::kMaxJsonDepth) + " levels at byte " +
                             std::to_string(i + 1),
                         "at most " + std::to_string(limits::kMaxJsonDepth) + " levels of lists and objects");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

std::string list(const Names& names, const char* sep) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : sep) + n;
  return out;
}

std::string join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string index(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::string describe(const json& v) {
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s + " (" + v.type_name() + ")";
}

std::string parse_error_text(const json::parse_error& e) { return exception_text(e); }

std::string exception_text(const json::exception& e) {
  std::string what = e.what();
  const auto cut = what.find("] ");
  if (cut != std::string::npos) what = what.substr(cut + 2);
  return what;
}

void Reader::fail(const std::string& field, const std::string& problem,
                  const std::string& expected) const {
  throw InputError(where_, field, problem, expected);
}

json Reader::parse(const std::string& text, const std::string& expected) const {
  check_depth(text, where_);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    fail("", "malformed JSON: " + parse_error_text(e), expected);
  } catch (const json::exception& e) {  // out_of_range.406: a number like 1e999
    fail("", "malformed JSON: " + exception_text(e), expected);
  }
}

void Reader::only_known(const json& obj, const std::string& path, const Names& known) const {
  for (const auto& item : obj.items())
    if (std::find(known.begin(), known.end(), item.key()) == known.end())
      fail(join(path, quoted(item.key())), "unknown field" + did_you_mean(item.key(), known),
           "one of " + list(known));
}

std::string Reader::choice(const json& v, const std::string& path, const Names& options) const {
  const std::string expected = "one of " + list(options);
  const std::string s = text(v, path, expected);
  if (std::find(options.begin(), options.end(), s) == options.end())
    fail(path, "'" + quoted(s) + "' is not allowed" + did_you_mean(s, options), expected);
  return s;
}

const json& Reader::require(const json& obj, const std::string& path, const char* key,
                            const std::string& expected) const {
  auto it = obj.find(key);
  if (it == obj.end()) fail(join(path, key), "missing", expected);
  return *it;
}

const json& Reader::object(const json& v, const std::string& path,
                           const std::string& expected) const {
  if (!v.is_object()) fail(path, describe(v) + " is not an object", expected);
  return v;
}

const json& Reader::array(const json& v, const std::string& path,
                          const std::string& expected) const {
  if (!v.is_array()) fail(path, describe(v) + " is not a list", expected);
  return v;
}

std::string Reader::text(const json& v, const std::string& path,
                         const std::string& expected) const {
  if (!v.is_string()) fail(path, describe(v) + " is not a string", expected);
  return v.get<std::string>();
}

std::string Reader::label(const json& v, const std::string& path, std::size_t max_bytes,
                          const std::string& expected) const {
  const std::string s = text(v, path, expected);
  if (s.size() > max_bytes)
    fail(path, "is " + std::to_string(s.size()) + " bytes long", expected + " of at most " + std::to_string(max_bytes) + " bytes");
  if (!is_label_text(s)) fail(path, "'" + quoted(s) + "' holds control characters", expected + ", printable");
  return s;
}

bool Reader::boolean(const json& v, const std::string& path, const std::string& expected) const {
  if (!v.is_boolean()) fail(path, describe(v) + " is not true or false", expected);
  return v.get<bool>();
}

namespace {

// What a reader expected, with the range it checked unless the words already give one
// ("seconds" becomes "seconds in [0, 1e+09]"; "a fraction in (0, 1]" stays).
std::string with_range(const std::string& expected, double lo, double hi, bool lo_open) {
  if (expected.find_first_of("0123456789") != std::string::npos) return expected;
  char b[96];
  std::snprintf(b, sizeof b, " in %s%g, %g]", lo_open ? "(" : "[", lo, hi);
  return expected + b;
}

}  // namespace

double Reader::number(const json& v, const std::string& path, double lo, double hi,
                      const std::string& expected, bool lo_open) const {
  if (!v.is_number()) fail(path, describe(v) + " is not a number", expected);
  const double x = v.get<double>();
  if ((lo_open ? x <= lo : x < lo) || x > hi) fail(path, v.dump() + " is out of range", with_range(expected, lo, hi, lo_open));
  return x;
}

long long Reader::integer(const json& v, const std::string& path, long long lo, long long hi,
                          const std::string& expected) const {
  if (!v.is_number_integer()) fail(path, describe(v) + " is not an integer", expected);
  // Non-negative JSON integers parse as unsigned; compare in the matching type.
  const bool out = v.is_number_unsigned()
                       ? v.get<unsigned long long>() > (unsigned long long)hi ||
                             (lo > 0 && v.get<unsigned long long>() < (unsigned long long)lo)
                       : v.get<long long>() < lo || v.get<long long>() > hi;
  if (out) fail(path, v.dump() + " is out of range", with_range(expected, double(lo), double(hi), false));
  return v.get<long long>();
}

}  // namespace possim::json_check
