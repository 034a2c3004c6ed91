#include "model/run/worker_selection.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "model/input/error.hpp"
#include "model/input/limits.hpp"

namespace possim {

namespace {

// Indices 0..workers-1 that `keep` selects, as "a-b,c" ranges.
template <class Keep>
std::string ranges_of(int workers, Keep keep) {
  std::string out;
  for (int w = 0; w < workers;) {
    if (!keep(w)) {
      ++w;
      continue;
    }
    int last = w;
    while (last + 1 < workers && keep(last + 1)) ++last;
    out += (out.empty() ? "" : ",") + std::to_string(w) + (last > w ? "-" + std::to_string(last) : "");
    w = last + 1;
  }
  return out;
}

// A worker index of the list: digits only, below the node limit. `item` is quoted.
int index_of(const std::string& text, const std::string& item, const std::string& option) {
  const bool digits = !text.empty() && text.size() <= 6 &&
                      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  const long value = digits ? std::strtol(text.c_str(), nullptr, 10) : -1;
  if (value < 0 || value >= limits::kMaxNodes)
    throw InputError(option, "", "'" + item.substr(0, limits::kMaxQuotedChars) + "' is not a worker index or range",
                     "indices and ranges in [0, " + std::to_string(limits::kMaxNodes - 1) +
                         "] such as 0-3,7, or all");
  return int(value);
}

}  // namespace

WorkerSelection::WorkerSelection() : ranges_{{0, kTraceWorkerCap - 1}} {}

WorkerSelection WorkerSelection::all() {
  WorkerSelection s;
  s.ranges_ = {{0, INT_MAX}};
  return s;
}

WorkerSelection WorkerSelection::parse(const std::string& list, const std::string& option) {
  if (list == "all") return all();
  std::vector<std::pair<int, int>> ranges;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = list.find(',', begin);
    const std::string item = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    const std::size_t dash = item.find('-');
    const int lo = index_of(item.substr(0, dash), item, option);
    const int hi = dash == std::string::npos ? lo : index_of(item.substr(dash + 1), item, option);
    if (hi < lo)
      throw InputError(option, "", "range '" + item + "' runs backwards", "LOW-HIGH with LOW <= HIGH");
    ranges.emplace_back(lo, hi);
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  std::sort(ranges.begin(), ranges.end());
  WorkerSelection s;
  s.ranges_.clear();
  for (const auto& r : ranges)  // merge overlapping and touching ranges
    if (!s.ranges_.empty() && r.first <= s.ranges_.back().second + 1)
      s.ranges_.back().second = std::max(s.ranges_.back().second, r.second);
    else
      s.ranges_.push_back(r);
  return s;
}

bool WorkerSelection::contains(int worker) const {
  for (const auto& [lo, hi] : ranges_)
    if (worker >= lo && worker <= hi) return true;
  return false;
}

std::string WorkerSelection::traced(int workers) const {
  return ranges_of(workers, [this](int w) { return contains(w); });
}

std::string WorkerSelection::left_out(int workers) const {
  return ranges_of(workers, [this](int w) { return !contains(w); });
}

std::string WorkerSelection::describe(int workers) const {
  const std::string in = traced(workers), out = left_out(workers);
  const std::string of = " of " + std::to_string(workers);
  if (out.empty()) return "all " + std::to_string(workers) + " workers";
  if (in.empty()) return "no worker" + of + " (all left out)";
  return "workers " + in + of + " (" + out + " left out)";
}

}  // namespace possim
