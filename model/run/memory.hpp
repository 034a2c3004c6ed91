// How possim's processes use the C heap.
#pragma once
#include <string>

namespace possim {

// Keep freed memory for the next allocation instead of returning it to the kernel. A sweep
// or a plan evaluates thousands of points, each building and freeing a plan and its
// schedule (tens to hundreds of KiB): with glibc's defaults, each point's large blocks are
// mapped, faulted in page by page and unmapped again, a fifth of the analytic engine's
// time (bench/results/analytic_sweep.md). Blocks from 64 MiB up are still mapped apart.
// The heap's first 8 MiB of growth are asked for in 2 MiB pages (transparent huge pages,
// where the kernel offers them): a short command touches a few MiB once, and on a virtual
// machine the first touch of each 4 KiB page can cost microseconds (8.5 us measured on
// this project's machines: a third of an analytic answer's wall time, bench/results/
// time_to_answer.md) where a 2 MiB page costs about 0.1-0.2 ms. Call it first thing, in
// a process that has allocated little. POSSIM_HUGE_PAGES=0 in the environment leaves the
// kernel's small pages (a machine where THP misbehaves; bench/huge_pages.sh compares).
void keep_freed_memory();

// False where the environment says POSSIM_HUGE_PAGES=0.
bool huge_pages_wanted();

// GLIBC_TUNABLES for a process whose malloc backs its heap with 2 MiB pages: `current`
// (the variable's value, or null) with glibc.malloc.hugetlb=1 added, or `current` as it is
// where it already sets glibc.malloc.hugetlb (the caller's choice stands).
std::string tunables_with_huge_pages(const char* current);

}  // namespace possim
