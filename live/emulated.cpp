#include "live/emulated.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace possim::live {

double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }

EmulatedResource::EmulatedResource(std::string name, double rate, Discipline d)
    : name_(std::move(name)), rate_(rate > 0 ? rate : 1e300), discipline_(d), thread_([this] { loop(); }) {}

EmulatedResource::~EmulatedResource() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void EmulatedResource::submit(double amount, double delay_s, Done done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto delay = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.0, delay_s)));
    jobs_.push_back(Job{std::max(0.0, amount), Clock::now() + delay, -1, std::move(done)});
  }
  cv_.notify_all();
}

// Advances every job in service by the time since the last step, finishes those done, and
// sleeps until the next event: a completion at the current share, a delay running out, or
// a new submission.
void EmulatedResource::loop() {
  std::unique_lock<std::mutex> lock(mu_);
  Clock::time_point last = Clock::now();
  for (;;) {
    if (stop_) return;
    const Clock::time_point now = Clock::now();
    const double dt = std::chrono::duration<double>(now - last).count();
    last = now;
    // Jobs in service: past their delay; FIFO serves only the first of those.
    std::vector<std::list<Job>::iterator> serving;
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it) {
      if (it->eligible > now) continue;
      serving.push_back(it);
      if (discipline_ == Discipline::fifo) break;
    }
    // Progress made since the last step went to the jobs served then; with events this
    // close together, those are the ones served now but for a newcomer, whose start is
    // taken as now (its share of dt is at most one scheduling quantum).
    const double now_abs = std::chrono::duration<double>(now.time_since_epoch()).count();
    std::size_t old = 0;
    for (auto it : serving) old += it->start_s >= 0;
    std::vector<std::pair<Done, std::pair<double, double>>> finished;
    for (auto it : serving) {
      if (it->start_s < 0) {
        it->start_s = now_abs;
        continue;
      }
      it->left -= dt * rate_ / double(old);
    }
    for (auto it : serving)
      if (it->start_s >= 0 && it->left <= rate_ * 1e-7) {  // within 0.1 us of done
        finished.push_back({std::move(it->done), {it->start_s, now_abs}});
        jobs_.erase(it);
      }
    if (!finished.empty()) {
      lock.unlock();
      for (auto& f : finished) f.first(f.second.first, f.second.second);
      lock.lock();
      continue;  // recompute the set in service
    }
    // Next event.
    Clock::time_point wake = Clock::time_point::max();
    std::size_t n = 0;
    for (auto it : serving) n += it->start_s >= 0;
    for (auto it : serving)
      if (it->start_s >= 0) {
        const double s = it->left * double(n) / rate_;
        wake = std::min(wake, now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)));
      }
    for (const Job& j : jobs_)
      if (j.eligible > now) wake = std::min(wake, j.eligible);
    if (wake == Clock::time_point::max()) cv_.wait(lock);
    else cv_.wait_until(lock, wake);
  }
}

}  // namespace possim::live
