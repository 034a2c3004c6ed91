// A task's dependencies (sync_plan.hpp): nearly every task has one to three, so they are kept
// inline, without a heap block of their own per task (plans of 100,000 tasks are built and
// freed per analytic point; a std::vector here was a third of the analytic engine's malloc).
// More spill to the heap. The subset of std::vector's interface the plan's users need.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <vector>

namespace possim {

struct Dep {
  std::uint32_t task = 0;
  std::uint32_t lag = 0;
};

class DepList {
 public:
  static constexpr std::uint32_t kInline = 3;

  DepList() = default;
  DepList(std::initializer_list<Dep> l) { append(l.begin(), l.end()); }
  DepList(const std::vector<Dep>& v) { append(v.data(), v.data() + v.size()); }  // NOLINT: as a vector
  DepList(const DepList& o) { append(o.begin(), o.end()); }
  DepList(DepList&& o) noexcept { take(o); }
  DepList& operator=(const DepList& o) {
    if (this != &o) {
      clear();
      append(o.begin(), o.end());
    }
    return *this;
  }
  DepList& operator=(DepList&& o) noexcept {
    if (this != &o) {
      heap_.reset();
      take(o);
    }
    return *this;
  }
  DepList& operator=(std::initializer_list<Dep> l) {
    clear();
    append(l.begin(), l.end());
    return *this;
  }

  void push_back(Dep d) {
    if (size_ == capacity_) grow(capacity_ * 2);
    data()[size_++] = d;
  }
  void clear() { size_ = 0; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Dep* begin() { return data(); }
  Dep* end() { return data() + size_; }
  const Dep* begin() const { return data(); }
  const Dep* end() const { return data() + size_; }
  const Dep& front() const { return data()[0]; }
  const Dep& back() const { return data()[size_ - 1]; }
  Dep& operator[](std::size_t i) { return data()[i]; }
  const Dep& operator[](std::size_t i) const { return data()[i]; }
  const Dep& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("DepList::at");
    return data()[i];
  }

 private:
  Dep* data() { return heap_ ? heap_.get() : inline_; }
  const Dep* data() const { return heap_ ? heap_.get() : inline_; }
  void append(const Dep* b, const Dep* e) {
    const std::size_t n = std::size_t(e - b);
    if (size_ + n > capacity_) grow(std::max<std::size_t>(size_ + n, std::size_t(capacity_) * 2));
    std::copy(b, e, data() + size_);
    size_ += std::uint32_t(n);
  }
  void grow(std::size_t to) {
    if (to > UINT32_MAX) throw std::length_error("DepList: too many dependencies");
    std::unique_ptr<Dep[]> bigger(new Dep[to]);
    std::copy(begin(), end(), bigger.get());
    heap_ = std::move(bigger);
    capacity_ = std::uint32_t(to);
  }
  void take(DepList& o) {
    size_ = o.size_;
    capacity_ = o.capacity_;
    heap_ = std::move(o.heap_);
    if (!heap_) std::copy(o.inline_, o.inline_ + o.size_, inline_);
    o.size_ = 0;
    o.capacity_ = kInline;
  }

  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = kInline;
  std::unique_ptr<Dep[]> heap_;  // when more than kInline
  Dep inline_[kInline] = {};
};

}  // namespace possim
