// How possim's processes use the C heap.
#pragma once

namespace possim {

// Keep freed memory for the next allocation instead of returning it to the kernel. A sweep
// or a plan evaluates thousands of points, each building and freeing a plan and its
// schedule (tens to hundreds of KiB): with glibc's defaults, each point's large blocks are
// mapped, faulted in page by page and unmapped again, a fifth of the analytic engine's
// time (bench/results/analytic_sweep.md). Blocks from 64 MiB up are still mapped apart.
void keep_freed_memory();

}  // namespace possim
