#include "cli/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace possim::cli {

std::string result_label(const Result& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s %s %d nodes %g Gbit/s", r.model.c_str(), r.strategy.c_str(),
                r.cluster.nodes, r.cluster.nic_gbps);
  return buf;
}

std::string duration_text(double s) {
  char buf[64];
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%d min %02d s", int(s) / 60, int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%d h %02d min", int(s) / 3600, int(s) % 3600 / 60);
  return buf;
}

ProgressLine::ProgressLine(std::string label, std::size_t total, std::size_t already, bool enabled,
                           bool terminal_only)
    : label_(std::move(label)), total_(total), already_(already), enabled_(enabled),
      tty_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()), last_line_(start_),
      last_done_(already) {
  if (terminal_only && !tty_) enabled_ = false;
}

std::string ProgressLine::text(std::size_t done, const std::string& last) const {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::size_t ran = done - already_;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %zu/%zu points (%.0f%%), %s", label_.c_str(), done, total_,
                total_ ? 100.0 * double(done) / double(total_) : 100.0, duration_text(elapsed).c_str());
  std::string out = buf;
  // The rate of this run's points: resumed ones took no time.
  if (ran > 0 && done < total_) out += ", about " + duration_text(elapsed / double(ran) * double(total_ - done)) + " left";
  if (!last.empty()) out += " (last: " + last + ")";
  return out;
}

void ProgressLine::update(std::size_t done, const std::string& last) {
  if (!enabled_) return;
  last_done_ = done;
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", text(done, last).c_str());
    std::fflush(stderr);
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  const std::size_t step = total_ ? done * 20 / total_ : 20;
  if (step > last_step_ || now - last_line_ >= std::chrono::seconds(10)) {
    last_step_ = step;
    last_line_ = now;
    std::fprintf(stderr, "%s\n", text(done, "").c_str());
    std::fflush(stderr);
  }
}

void ProgressLine::update(std::size_t done, const Result& last) {
  update(done, enabled_ && tty_ ? result_label(last) : std::string());
}

void ProgressLine::finish() {
  if (!enabled_) return;
  if (tty_) std::fprintf(stderr, "\r\033[K");
  else if (last_step_ < 20) std::fprintf(stderr, "%s\n", text(last_done_, "").c_str());
  std::fflush(stderr);
}

}  // namespace possim::cli
