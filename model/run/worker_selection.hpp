// Which workers a timeline records (`possim run --trace-workers`). A trace of every
// worker of a 1024-node cluster is gigabytes nobody opens: by default the first
// kTraceWorkerCap workers are recorded, and the trace says which were left out.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace possim {

constexpr int kTraceWorkerCap = 64;

class WorkerSelection {
 public:
  WorkerSelection();  // workers 0 .. kTraceWorkerCap-1
  static WorkerSelection all();
  // "0-3,7" (ranges and single indices, any order) or "all". Throws InputError naming
  // `option` for anything else.
  static WorkerSelection parse(const std::string& list, const std::string& option);

  bool contains(int worker) const;
  // Of workers 0..workers-1: the recorded ones and the left-out ones, as ranges
  // ("0-63", "64-127"); "" when none.
  std::string traced(int workers) const;
  std::string left_out(int workers) const;
  // One line for a trace's metadata: "workers 0-63 of 128 (64-127 left out)".
  std::string describe(int workers) const;

 private:
  std::vector<std::pair<int, int>> ranges_;  // inclusive, ascending, disjoint
};

}  // namespace possim
