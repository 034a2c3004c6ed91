// Rows of a CSV file as RFC 4180 writes them (quoted fields holding commas, quotes and
// line breaks; CRLF or LF line ends), read by libcsv in strict mode, plus what possim's
// measurement files add: lines starting with '#' between rows are comments, blank lines
// are skipped, a UTF-8 byte order mark before the first row is dropped. A malformed file
// (a quote inside an unquoted field, a quoted field never closed) is an InputError
// naming the file and the line.
#pragma once
#include <string>
#include <vector>

namespace possim {

struct CsvRow {
  int line = 0;  // the line the row starts on (1-based)
  std::vector<std::string> cells;  // as written, quotes undone, spaces around unquoted fields kept
};

struct CsvText {
  std::vector<CsvRow> rows;
  bool had_bom = false;  // the file began with a UTF-8 byte order mark (dropped)
};

CsvText read_csv(const std::string& text, const std::string& where);

// A field as RFC 4180 writes it: in double quotes (a quote doubled) when it holds a comma,
// a quote, a line break or spaces at either end; as it is otherwise.
std::string csv_field(const std::string& s);

}  // namespace possim
