#include "model/run/memory.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace possim {

namespace {

#ifdef __GLIBC__
constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;

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
  std::free(block);  // back into the top chunk, which is not trimmed below M_TRIM_THRESHOLD
  if (block == nullptr || before == reinterpret_cast<char*>(-1) || after <= before) return;  // not glibc's heap
  const auto at = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t from = (at + kHugePage) & ~(kHugePage - 1);
  const std::uintptr_t to = reinterpret_cast<std::uintptr_t>(after) & ~(kHugePage - 1);
  if (to <= from) return;
#ifdef MADV_HUGEPAGE
  if (madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE) != 0) return;
#else
  return;
#endif
  // The top now starts at `block` again: fill it up to `from` with a block kept for good
  // (its header's page is the only one it touches). Where malloc placed it elsewhere, it
  // goes back: the heap then reaches the huge pages a little later, which is all.
  const std::size_t pad = from - at - 2 * sizeof(std::size_t);  // less the next chunk's header
  void* below = std::malloc(pad);
  if (below != block) std::free(below);
}
#endif

}  // namespace

bool huge_pages_wanted() {
  const char* v = std::getenv("POSSIM_HUGE_PAGES");
  return v == nullptr || std::string(v) != "0";
}

void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  if (huge_pages_wanted()) reserve_huge_heap(std::size_t(8) << 20);
#endif
}

}  // namespace possim
