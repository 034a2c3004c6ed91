#include "model/input/nccl_tests.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/text.hpp"

namespace possim {

namespace {

constexpr std::size_t kMaxRows = 4096;
constexpr double kMaxBytes = 1ull << 44;  // 16 TiB: far above any GPU's memory

// The element types all_reduce_perf takes (-d), by the name it prints.
const std::map<std::string, int>& type_bytes() {
  static const std::map<std::string, int> m = {
      {"int8", 1},  {"uint8", 1},  {"int32", 4},    {"uint32", 4}, {"int64", 8},  {"uint64", 8},
      {"half", 2},  {"float", 4},  {"double", 8},   {"bfloat16", 2}, {"f8e4m3", 1}, {"f8e5m2", 1}};
  return m;
}

std::string g4(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", x);
  return b;
}

std::vector<std::string> fields_of(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; in >> f;) out.push_back(f);
  return out;
}

}  // namespace

std::optional<DType> gradient_dtype_of(const std::string& nccl_type) {
  if (nccl_type == "float") return DType::fp32;
  if (nccl_type == "half") return DType::fp16;
  if (nccl_type == "bfloat16") return DType::bf16;
  return std::nullopt;
}

const char* nccl_type_of(DType d) { return d == DType::fp16 ? "half" : d == DType::bf16 ? "bfloat16" : "float"; }

double allreduce_bus_factor(int ranks) { return ranks <= 1 ? 1.0 : 2.0 * (ranks - 1) / ranks; }

NcclTestsFile parse_nccl_tests(const std::string& text, const std::string& where) {
  NcclTestsFile f;
  f.path = where;
  bool named = false;
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string at = where + ":" + std::to_string(n);
    const std::vector<std::string> cell = fields_of(line);
    if (cell.empty()) continue;
    if (cell[0][0] == '#') {
      if (line.find("all_reduce_perf") != std::string::npos) named = true;
      // "#  Rank  3 Group  0 Pid ... device  3 [...] NVIDIA H100 80GB HBM3"
      if (cell.size() >= 3 && cell[0] == "#" && cell[1] == "Rank") ++f.ranks;
      continue;
    }
    if (f.rows.size() >= kMaxRows)
      throw InputError(at, "", "more than " + std::to_string(kMaxRows) + " rows", "one all_reduce_perf run");
    if (cell.size() != 9 && cell.size() != 13)
      throw InputError(at, "", "a row of " + std::to_string(cell.size()) + " fields",
                       "size count type redop root time algbw busbw #wrong [time algbw busbw #wrong], "
                       "or a '#' comment");
    NcclTestsRow r;
    r.line = n;
    const auto integer = [&](const std::string& s, const char* name, long long lo, double hi) {
      const std::optional<long long> v = parse_decimal_integer(s);
      if (!v || *v < lo || double(*v) > hi)
        throw InputError(at, name, "'" + printable_text(s) + "' is not a count in range",
                         "an integer in [" + std::to_string(lo) + ", " + g4(hi) + "]");
      return *v;
    };
    const auto positive = [&](const std::string& s, const char* name) {
      const std::optional<double> v = parse_decimal(s);
      if (!v || !(*v > 0))
        throw InputError(at, name, "'" + printable_text(s) + "' is not a positive number", "a positive decimal");
      return *v;
    };
    r.bytes = double(integer(cell[0], "size", 1, kMaxBytes));
    r.count = integer(cell[1], "count", 1, kMaxBytes);
    r.type = cell[2];
    const auto t = type_bytes().find(r.type);
    if (t == type_bytes().end())
      throw InputError(at, "type", "'" + printable_text(r.type) + "' is not a type all_reduce_perf prints",
                       "float, half, bfloat16, double, int8, int32, ...");
    if (double(r.count) * t->second != r.bytes)
      throw InputError(at, "size", "is not count x " + std::to_string(t->second) + " bytes of " + r.type,
                       std::to_string(r.count * t->second));
    if (cell[4] != "-1")
      throw InputError(at, "root", "'" + printable_text(cell[4]) + "': a rooted collective", "-1 (all-reduce)");
    r.time_s = positive(cell[5], "time") * 1e-6;
    const std::optional<double> algbw = parse_decimal(cell[6]), busbw = parse_decimal(cell[7]);
    if (!algbw || !busbw || *algbw < 0 || *busbw < 0)
      throw InputError(at, "algbw, busbw", "not numbers", "GB/s, as all_reduce_perf prints them");
    // algbw = size / time, printed to 0.01 GB/s: a row whose numbers do not agree was edited.
    const double expect = r.bytes / r.time_s / 1e9;
    if (std::abs(*algbw - expect) > 0.006 + 0.01 * expect)
      throw InputError(at, "algbw", g4(*algbw) + " GB/s is not size / time (" + g4(expect) + " GB/s)",
                       "the row as all_reduce_perf printed it");
    r.busbw_bytes_per_s = *busbw * 1e9;
    f.rows.push_back(r);
  }
  if (!named)
    throw InputError(where, "", "does not say it is all_reduce_perf's output",
                     "the command line or NCCL-tests' '# Collective test starting: all_reduce_perf' in a '#' line");
  if (f.ranks < 1) throw InputError(where, "", "has no '#  Rank' lines", "all_reduce_perf's list of ranks");
  if (f.rows.empty()) throw InputError(where, "", "has no rows", "at least one size all_reduce_perf measured");
  const double factor = allreduce_bus_factor(f.ranks);
  for (const NcclTestsRow& r : f.rows) {
    const double alg = r.bytes / r.time_s;
    if (std::abs(r.busbw_bytes_per_s - alg * factor) > 0.006e9 + 0.01 * alg * factor)
      throw InputError(where + ":" + std::to_string(r.line), "busbw",
                       "is not algbw x 2(n-1)/n for the file's " + std::to_string(f.ranks) + " ranks",
                       "an all-reduce over the ranks the file lists");
  }
  return f;
}

NcclTestsFile load_nccl_tests(const std::string& path) {
  return parse_nccl_tests(read_input_file(path, "NCCL-tests output", "all_reduce_perf's output, as it printed it"),
                          path);
}

}  // namespace possim
