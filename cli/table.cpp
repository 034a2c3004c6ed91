#include "cli/table.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace possim::cli {

namespace {
bool numeric(const std::string& s) {
  return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '.');
}
}  // namespace

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width(header_.size(), 0);
  for (std::size_t c = 0; c < header_.size(); ++c) width[c] = header_[c].size();
  for (const auto& row : rows_)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  const auto line = [&](const std::vector<std::string>& row, bool head) {
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      const std::size_t pad = width[c] - cell.size();
      const bool right = !head && numeric(cell) && c > 0;
      if (c) out << "  ";
      if (right) out << std::string(pad, ' ') << cell;
      else out << cell << (c + 1 < width.size() ? std::string(pad, ' ') : "");
    }
    out << '\n';
  };
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  line(header_, true);
  out << std::string(total > 2 ? total - 2 : 0, '-') << '\n';
  for (const auto& row : rows_) {
    if (row.empty()) out << '\n';
    else line(row, false);
  }
}

std::string g4(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}

}  // namespace possim::cli
