#include "live/emulated.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
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

void EmulatedResource::submit(double amount, double delay_s, double since_s, Done done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto delay = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.0, delay_s)));
    Clock::time_point from = Clock::now();
    if (since_s >= 0 && discipline_ == Discipline::fifo)
      from = std::min(from, Clock::time_point(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(since_s))));
    jobs_.push_back(Job{std::max(0.0, amount), from + delay, -1, std::move(done)});
  }
  cv_.notify_all();
}

void EmulatedResource::set_slowdown(double slowdown) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wanted_slowdown_ = slowdown;
  }
  cv_.notify_all();
}

namespace {
double seconds(Clock::time_point t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }
Clock::duration span(double s) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s)); }
}  // namespace

// FIFO: the head job runs from max(its eligibility, the previous job's due end) for
// amount / rate. Sharing: advances every job in service by the time since the last step,
// finishes those done. Then sleeps until the next event: a completion, a delay running
// out, or a new submission.
void prefer_prompt_wakeups() {
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  sched_param prio{};
  prio.sched_priority = 1;
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &prio);  // best effort: needs root
}

void EmulatedResource::loop() {
  prefer_prompt_wakeups();
  std::unique_lock<std::mutex> lock(mu_);
  Clock::time_point last = Clock::now();
  for (;;) {
    if (stop_) return;
    const Clock::time_point now = Clock::now();
    std::vector<std::pair<Done, std::pair<double, double>>> finished;
    Clock::time_point wake = Clock::time_point::max();
    if (discipline_ == Discipline::fifo) {
      // A new slowdown: the job in service does the rest of its work at the new rate.
      if (wanted_slowdown_ != slowdown_) {
        if (!jobs_.empty() && jobs_.front().start_s >= 0 && jobs_.front().due > now)
          jobs_.front().due = now + span(std::chrono::duration<double>(jobs_.front().due - now).count() *
                                         wanted_slowdown_ / slowdown_);
        slowdown_ = wanted_slowdown_;
      }
      for (auto it = jobs_.begin(); it != jobs_.end();) {
        if (it->start_s < 0) {  // the head, not yet started
          if (it->eligible > now) {
            wake = it->eligible;
            break;
          }
          const Clock::time_point start = std::max(it->eligible, fifo_free_);
          it->start_s = seconds(start);
          it->due = start + span(it->left / rate());
        }
        if (it->due > now) {
          wake = it->due;
          break;
        }
        fifo_free_ = it->due;
        finished.push_back({std::move(it->done), {it->start_s, seconds(it->due)}});
        it = jobs_.erase(it);
      }
    } else {
      const double dt = std::chrono::duration<double>(now - last).count();
      std::vector<std::list<Job>::iterator> serving;
      for (auto it = jobs_.begin(); it != jobs_.end(); ++it)
        if (it->eligible <= now) serving.push_back(it);
      // The time since the last step went to the jobs served then (a newcomer starts now).
      std::size_t old = 0;
      for (auto it : serving) old += it->start_s >= 0;
      for (auto it : serving) {
        if (it->start_s < 0) it->start_s = std::max(seconds(it->eligible), seconds(last));
        else it->left -= dt * rate() / double(old);
      }
      slowdown_ = wanted_slowdown_;  // the time before now went at the old rate
      std::size_t n = 0;
      for (auto it : serving) {
        if (it->left <= rate() * 1e-7) {  // within 0.1 us of done
          finished.push_back({std::move(it->done), {it->start_s, seconds(now)}});
          jobs_.erase(it);
        } else {
          ++n;
        }
      }
      for (const Job& j : jobs_)
        if (j.eligible > now) wake = std::min(wake, j.eligible);
        else wake = std::min(wake, now + span(j.left * double(n) / rate()));
    }
    last = now;
    if (!finished.empty()) {
      lock.unlock();
      for (auto& f : finished) f.first(f.second.first, f.second.second);
      lock.lock();
      continue;  // recompute what is in service
    }
    if (wake == Clock::time_point::max()) cv_.wait(lock);
    else cv_.wait_until(lock, wake);
  }
}

}  // namespace possim::live
