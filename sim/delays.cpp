#include "sim/delays.hpp"

#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace possim::sim {

Delays::Delays(sg4::Host* host, const std::string& name, std::function<void(bool)> turn)
    : turn_(std::move(turn)), mutex_(sg4::Mutex::create()), wake_(sg4::ConditionVariable::create()) {
  sg4::Actor::create(name, host, [this] { run(); });
}

void Delays::after(double delay_s, std::function<void()> call) {
  if (!(delay_s >= 0)) throw std::logic_error("Delays::after: a delay must be >= 0 s");
  std::uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
    calls_[slot] = std::move(call);
  } else {
    slot = std::uint32_t(calls_.size());
    calls_.push_back(std::move(call));
  }
  const double at_s = sg4::Engine::get_clock() + delay_s;
  due_.push(Due{at_s, next_seq_++, slot});
  if (!running_ && at_s < waiting_until_s_) wake_->notify_one();
}

void Delays::stop() {
  stop_ = true;
  if (!running_) wake_->notify_one();
}

void Delays::run() {
  std::unique_lock<sg4::Mutex> lock(*mutex_);
  const auto due_now = [this] { return !due_.empty() && due_.top().at_s <= sg4::Engine::get_clock() + kResolution_s; };
  for (;;) {
    const bool calls = due_now();
    if (calls && turn_) turn_(true);
    while (due_now()) {
      const std::uint32_t slot = due_.top().slot;
      due_.pop();
      const std::function<void()> call = std::move(calls_[slot]);
      calls_[slot] = nullptr;
      free_.push_back(slot);
      call();  // may queue more: due now, it runs in this same turn
    }
    if (calls && turn_) turn_(false);
    if (stop_ && due_.empty()) return;
    running_ = false;
    if (due_.empty()) {
      waiting_until_s_ = std::numeric_limits<double>::infinity();
      wake_->wait(lock);
    } else {
      waiting_until_s_ = due_.top().at_s;
      wake_->wait_until(lock, waiting_until_s_);
    }
    running_ = true;
  }
}

}  // namespace possim::sim
