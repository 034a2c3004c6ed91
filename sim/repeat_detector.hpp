// Finds the iteration after which every later one repeats it, shifted in time.
//
// Iteration t repeats t-1 when both began only after their predecessor had ended (so each
// started from an idle cluster), nothing later had begun before t ended, every instance
// and flow of t sat at the same offset from its iteration's start as in t-1, and no input
// varies by iteration (stragglers). Every later iteration then starts from the same idle
// state with the same work: the engine stops launching and reports them from t.
#pragma once
#include <cstddef>
#include <vector>

namespace possim::sim {

class RepeatDetector {
 public:
  // `enabled`: the engine's option and inputs that repeat; `instances`: per iteration.
  RepeatDetector(int iterations, std::size_t instances, bool enabled);

  void launched(int t, std::size_t instance, double now);
  void collective_launched(int t);
  void flow_landed(int t, double now);
  // Instance of iteration t completed at `now`; true when it was the iteration's last.
  bool completed(int t, std::size_t instance, double now);
  // After the last instance of iteration t completed: decides whether t repeats t-1.
  void end_iteration(int t);

  int steady() const { return steady_; }           // -1 until found
  double period() const { return period_; }        // spacing of the repeated iterations
  bool skipped(int t) const { return steady_ >= 0 && t > steady_; }
  int source(int t) const { return skipped(t) ? steady_ : t; }  // what iteration t repeats
  double shift(int t) const { return double(t - source(t)) * period_; }
  double iteration_end(int t) const { return iter_end_[std::size_t(t)]; }
  double started(int t, std::size_t i) const { return started_[std::size_t(t) * n_ + i]; }
  double finished(int t, std::size_t i) const { return finished_[std::size_t(t) * n_ + i]; }

 private:
  bool repeats(int t) const;

  int k_;
  std::size_t n_;
  bool enabled_;
  std::vector<double> started_, finished_;  // per instance
  std::vector<std::size_t> left_;           // per iteration: instances not yet complete
  std::vector<double> iter_end_, first_launch_, flow_end_sum_;
  std::vector<std::size_t> flows_, collectives_;
  int steady_ = -1;
  double period_ = 0;
};

}  // namespace possim::sim
