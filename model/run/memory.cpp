#include "model/run/memory.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace possim {

namespace {

#ifdef __GLIBC__
constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
void* kept_below = nullptr;  // never freed (reachable, for leak checkers)

// Grows the main heap by `bytes` now, lets the kernel back the 2 MiB-aligned part of the
// growth with transparent huge pages (THP "madvise" or "always"; elsewhere the advice is
// refused, harmlessly), and moves the heap's top to the first aligned address so that
// what the command allocates next lands there. Only a range nothing has touched yet can
// take a huge page, hence before the command starts. What lies below the aligned address
// (at most 2 MiB of address space, never touched) stays allocated and unused.
void reserve_huge_heap(std::size_t bytes) {
  auto* before = static_cast<char*>(sbrk(0));
  void* block = std::malloc(bytes);  // below M_MMAP_THRESHOLD: carved from the heap's top
  auto* after = static_cast<char*>(sbrk(0));
  const auto at = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t from = (at + kHugePage) & ~(kHugePage - 1);
  const std::uintptr_t to = reinterpret_cast<std::uintptr_t>(after) & ~(kHugePage - 1);
  bool advised = false;
  if (block != nullptr && before != reinterpret_cast<char*>(-1) && after > before && to > from) {  // glibc's heap grew
#ifdef MADV_HUGEPAGE
    advised = madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE) == 0;
#endif
  }
  if (!advised) {
    std::free(block);
    return;
  }
  // Keep the block's part below `from` for good, shrunk in place: its tail goes back to the
  // top, which then starts at the aligned address (the kept part touches only its header's
  // page, and the top's header the page before `from`).
  const std::size_t below = std::max<std::size_t>(from - at - 2 * sizeof(std::size_t), 1);
  kept_below = std::realloc(block, below);
}
#endif

}  // namespace

bool huge_pages_wanted() {
  const char* v = std::getenv("POSSIM_HUGE_PAGES");
  return v == nullptr || std::string(v) != "0";
}

std::string tunables_with_huge_pages(const char* current) {
  const std::string now = current == nullptr ? "" : current;
  if (now.find("glibc.malloc.hugetlb") != std::string::npos) return now;
  return now.empty() ? "glibc.malloc.hugetlb=1" : now + ":glibc.malloc.hugetlb=1";
}

void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  if (huge_pages_wanted()) reserve_huge_heap(std::size_t(8) << 20);
#endif
}

}  // namespace possim
