// A progress line on stderr for commands that run many points: on a terminal one line
// redrawn in place (\r), with the points done, the elapsed time and an estimate of the time
// left; when stderr is a file or a pipe (a batch job's log), the same as plain lines, one
// every 5% of the points or every 10 s, whichever comes first.
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

#include "model/run/result.hpp"

namespace possim::cli {

class ProgressLine {
 public:
  // `label` starts each line ("sweep"). `already`: points done before this run (a resumed
  // sweep), left out of the rate the estimate is made from. With terminal_only, nothing is
  // printed when stderr is not a terminal (possim run, whose logs stay as they were).
  ProgressLine(std::string label, std::size_t total, std::size_t already, bool enabled,
               bool terminal_only = false);
  // `done` counts `already`; `last` names the point that just finished. Not thread-safe:
  // call from one thread at a time.
  void update(std::size_t done, const std::string& last = "");
  // The same, naming the point by result_label(), formatted only where a line shows it
  // (a terminal's): a quiet run of many short points does not pay for it.
  void update(std::size_t done, const Result& last);
  // Clears the redrawn line (terminal) or prints the final count (plain lines).
  void finish();

 private:
  std::string text(std::size_t done, const std::string& last) const;
  std::string label_;
  std::size_t total_, already_;
  bool enabled_, tty_;
  std::chrono::steady_clock::time_point start_, last_line_;
  std::size_t last_step_ = 0;  // 5% steps printed (plain lines)
  std::size_t last_done_ = 0;  // the count last given (finish prints it)
};

// A point as a progress line names it: "vgg19 ps 8 nodes 10 Gbit/s".
std::string result_label(const Result& r);

// "42 s", "3 min 20 s", "2 h 05 min".
std::string duration_text(double seconds);

}  // namespace possim::cli
