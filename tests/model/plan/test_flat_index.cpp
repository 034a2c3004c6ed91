// model/plan/flat_index.hpp against std::map.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>

#include "model/plan/flat_index.hpp"

TEST_CASE("flat index: agrees with a std::map under inserts and erases", "[flat_index]") {
  // Keys from a small range collide often, so runs form, wrap around the table and are
  // shifted back by erases; the index must answer as a std::map does after every step.
  possim::FlatIndex index;
  std::map<std::uint64_t, std::uint32_t> ref;
  std::uint64_t x = 88172645463325252ull;  // xorshift64: a fixed sequence
  for (std::uint32_t step = 0; step < 200000; ++step) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const std::uint64_t key = (x % 3000) * 4096 + (x >> 40) % 7;
    if (ref.count(key)) {
      index.erase(key);
      ref.erase(key);
    } else if (ref.size() < 1500) {
      index.insert(key, step);
      ref[key] = step;
    }
    if (step % 97 == 0)
      for (const auto& [k, v] : ref) REQUIRE(index.find(k) == v);
    REQUIRE(index.find(key) == (ref.count(key) ? ref[key] : possim::FlatIndex::kNone));
    REQUIRE(index.size() == ref.size());
  }
}
