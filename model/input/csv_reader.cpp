#include "model/input/csv_reader.hpp"

#include <csv.h>

#include <memory>

#include "model/input/error.hpp"

namespace possim {

namespace {

struct Collect {
  CsvText out;
  CsvRow row;
  bool row_open = false;  // a field of the current row has ended
  int line = 1;           // the line being fed
  int row_line = 1;       // the line the current row started on
};

void field_done(void* s, std::size_t len, void* data) {
  auto* c = static_cast<Collect*>(data);
  if (!c->row_open) c->row.line = c->row_line;
  c->row_open = true;
  c->row.cells.emplace_back(s ? static_cast<const char*>(s) : "", s ? len : 0);
}

void row_done(int, void* data) {
  auto* c = static_cast<Collect*>(data);
  if (!c->row_open) c->row.line = c->row_line;
  c->out.rows.push_back(std::move(c->row));
  c->row = CsvRow{};
  c->row_open = false;
}

bool blank_or_comment(const std::string& line) {
  const std::size_t i = line.find_first_not_of(" \t\r");
  return i == std::string::npos || line[i] == '#';
}

}  // namespace

CsvText read_csv(const std::string& text, const std::string& where) {
  csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) throw std::bad_alloc();
  const std::unique_ptr<csv_parser, void (*)(csv_parser*)> owned(&p, csv_free);
  Collect c;
  std::size_t at = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    c.out.had_bom = true;
    at = 3;
  }
  const auto fail = [&](const std::string& what) {
    throw InputError(where + ":" + std::to_string(c.line), "", what,
                     "CSV as RFC 4180 writes it: a field holding a comma, quote or line break in double quotes, "
                     "a quote inside one doubled");
  };
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string line = text.substr(at, end - at);
    // Between rows (no field begun, none ended): a comment or a blank line is no row.
    const bool between = !c.row_open && p.entry_pos == 0 && !p.quoted;
    if (!(between && blank_or_comment(line))) {
      if (between) c.row_line = c.line;
      if (csv_parse(&p, line.data(), line.size(), field_done, row_done, &c) != line.size())
        fail(csv_error(&p) == CSV_EPARSE ? "a quote where RFC 4180 allows none (in an unquoted field, or after a closing quote)"
                                         : csv_strerror(csv_error(&p)));
    }
    at = end;
    ++c.line;
  }
  --c.line;  // the last line fed
  if (csv_fini(&p, field_done, row_done, &c) != 0) fail("a quoted field never closed");
  return std::move(c.out);
}

std::string csv_field(const std::string& s) {
  const bool quote = s.find_first_of(",\"\r\n") != std::string::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' ' || s.front() == '\t' || s.back() == '\t'));
  if (!quote) return s;
  std::string out = "\"";
  for (const char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

}  // namespace possim
