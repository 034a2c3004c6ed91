// Text that crosses a boundary: from a file or the command line into a message, a terminal,
// a CSV cell, a generated script or a file name. One definition of what is safe, used by
// every reader (json_check::Reader::label) and every writer that embeds user text.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace possim {

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_utf8(const std::string& s);

// Valid UTF-8 holding no control character (C0 including NUL, DEL, C1): safe to print on a
// terminal, to quote in CSV, gnuplot or HTML, and to write into JSON.
bool is_label_text(const std::string& s);

// `s` as one printable line: control characters escaped (\n, \r, \t, \xNN, \u0085), and
// each byte that is not part of valid UTF-8 as \xNN. Backslashes are kept as they are.
std::string printable_text(const std::string& s);

// A decimal number as a person writes it: [+-]digits[.digits][(e|E)[+-]digits], or
// [+-].digits..., nothing else (no hex, no "inf" or "nan", no spaces, no trailing text);
// finite. Nothing otherwise.
std::optional<double> parse_decimal(const std::string& s);
// A decimal integer: [+-]digits within long long. Nothing otherwise.
std::optional<long long> parse_decimal_integer(const std::string& s);

// "1 point", "2 points": a count and its noun, plural (noun + "s") but at exactly one.
std::string counted(long long n, const std::string& noun);

// A number with `decimals` digits after the point, as possim's tables print it ("%.*f"); a
// figure that rounds to zero prints as 0 whatever its sign ("-0.00%" reads as a bias).
std::string fixed(double v, int decimals);
// A fraction as a percentage with one decimal: "97.8%".
std::string percent(double fraction);

// Three significant digits with an SI prefix: counts read "1.73M", quantities with a unit
// "1.73 MB" (k, M, G, T, P).
std::string si(double v, const char* unit);

}  // namespace possim
