// DepList (model/plan/dep_list.hpp): a task's dependencies inline up to three, on the heap
// beyond, with the copies and moves a plan's tasks go through.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "model/plan/dep_list.hpp"

using namespace possim;

namespace {
std::vector<std::uint32_t> tasks(const DepList& l) {
  std::vector<std::uint32_t> v;
  for (const Dep& d : l) v.push_back(d.task);
  return v;
}
}  // namespace

TEST_CASE("DepList keeps its dependencies in order inline and past its inline capacity", "[plan]") {
  DepList l;
  CHECK(l.empty());
  std::vector<std::uint32_t> want;
  for (std::uint32_t i = 0; i < 40; ++i) {  // inline, then spilled, then grown again
    l.push_back(Dep{i, i % 2});
    want.push_back(i);
    REQUIRE(l.size() == want.size());
    REQUIRE(tasks(l) == want);
  }
  CHECK(l.at(39).lag == 1);
  CHECK_THROWS_AS(l.at(40), std::out_of_range);
  l.clear();
  CHECK(l.empty());
  l.push_back(Dep{7, 0});
  CHECK(tasks(l) == std::vector<std::uint32_t>{7});
}

TEST_CASE("DepList copies and moves, inline and spilled, leave each list whole", "[plan]") {
  for (std::uint32_t n : {0u, 1u, 3u, 4u, 17u}) {
    INFO(n << " dependencies");
    std::vector<Dep> v;
    for (std::uint32_t i = 0; i < n; ++i) v.push_back(Dep{100 + i, 0});
    const DepList from_vector = v;
    std::vector<std::uint32_t> want;
    for (const Dep& d : v) want.push_back(d.task);
    CHECK(tasks(from_vector) == want);
    DepList copy = from_vector;
    copy.push_back(Dep{1, 0});  // the copy is its own
    CHECK(tasks(from_vector) == want);
    DepList moved = std::move(copy);
    want.push_back(1);
    CHECK(tasks(moved) == want);
    CHECK(copy.empty());  // NOLINT: a moved-from list is empty and usable
    copy.push_back(Dep{2, 0});
    CHECK(tasks(copy) == std::vector<std::uint32_t>{2});
    DepList assigned = {Dep{9, 1}};
    assigned = moved;
    CHECK(tasks(assigned) == want);
    assigned = std::move(moved);
    CHECK(tasks(assigned) == want);
    assigned = {Dep{5, 0}, Dep{6, 0}};
    CHECK(tasks(assigned) == std::vector<std::uint32_t>{5, 6});
  }
}
