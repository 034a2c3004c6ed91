// An index from 64-bit keys to 32-bit places: open addressing with linear probing in one
// flat array, deletion by backward shift (no tombstones). Where std::unordered_map would
// allocate and free a node per entry: the star solver's node pairs (a full 4,096-node run
// starts and idles a pair for nearly every one of its ~7 million flows) and a plan's nodes
// that hold slices (model/plan/node_load.hpp, once per network task and slice).
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

namespace possim {

class FlatIndex {
 public:
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  // The value stored for key, or kNone.
  std::uint32_t find(std::uint64_t key) const {
    if (slots_.empty()) return kNone;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      if (slots_[i].value == kNone) return kNone;
      if (slots_[i].key == key) return slots_[i].value;
    }
  }
  // Stores value (not kNone) for key, which must be absent.
  void insert(std::uint64_t key, std::uint32_t value) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(key);
    while (slots_[i].value != kNone) i = (i + 1) & mask_;
    slots_[i] = Slot{key, value};
    ++size_;
  }
  // Removes key, which must be present: the entries after it in its run move back, so a
  // lookup never stops early at a hole.
  void erase(std::uint64_t key) {
    std::size_t i = home(key);
    while (slots_[i].key != key || slots_[i].value == kNone) i = (i + 1) & mask_;
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      if (slots_[j].value == kNone) break;
      // j's entry may fill the hole at i unless its home lies cyclically in (i, j].
      const std::size_t h = home(slots_[j].key);
      if (((j - h) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].value = kNone;
    --size_;
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t value = kNone;
  };
  std::size_t home(std::uint64_t key) const {
    return std::size_t((key * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;  // Fibonacci hashing
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    const std::size_t capacity = old.empty() ? 64 : 2 * old.size();
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64;
    for (std::size_t c = capacity; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (const Slot& s : old)
      if (s.value != kNone) insert(s.key, s.value);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0, size_ = 0;
  int shift_ = 64;
};

}  // namespace possim
