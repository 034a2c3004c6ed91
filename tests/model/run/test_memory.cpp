// The heap in 2 MiB pages (model/run/memory.hpp): keep_freed_memory() leaves a range of the
// heap advised for transparent huge pages, that the process's next allocations reach, unless
// POSSIM_HUGE_PAGES=0; and the SimGrid process's GLIBC_TUNABLES.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "model/run/memory.hpp"

using namespace possim;

namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kOwnAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kOwnAllocator = true;
#else
constexpr bool kOwnAllocator = false;
#endif
#else
constexpr bool kOwnAllocator = false;
#endif

// Whether some mapping advised for huge pages ("hg" in its VmFlags) holds `p`.
bool advised_huge(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= at && at < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return (" " + line + " ").find(" hg ") != std::string::npos;
  }
  return false;
}

// Runs keep_freed_memory() in a fresh child with POSSIM_HUGE_PAGES as given (null: unset),
// allocates 3 MiB in small blocks and exits 0 if the last of them lies in an advised range, 1
// if not.
int child_heap_advised(const char* huge_pages) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (huge_pages) setenv("POSSIM_HUGE_PAGES", huge_pages, 1);
    else unsetenv("POSSIM_HUGE_PAGES");
    keep_freed_memory();
    void* last = nullptr;
    for (int i = 0; i < 3 * 1024; ++i) {
      last = std::malloc(1024);  // kept: the heap grows past its first aligned 2 MiB
      std::memset(last, 1, 1024);
    }
    _exit(advised_huge(last) ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

bool kernel_has_thp() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

}  // namespace

TEST_CASE("the heap a command allocates from is advised for 2 MiB pages, unless POSSIM_HUGE_PAGES=0", "[memory]") {
  if (kOwnAllocator || !kernel_has_thp()) {
    WARN("skipped: a sanitizer's allocator, or a kernel without transparent huge pages");
    return;
  }
  CHECK(child_heap_advised(nullptr) == 0);
  CHECK(child_heap_advised("1") == 0);
  CHECK(child_heap_advised("0") == 1);
}

TEST_CASE("POSSIM_HUGE_PAGES: only 0 says no", "[memory]") {
  const char* was = std::getenv("POSSIM_HUGE_PAGES");
  const std::string saved = was ? was : "";
  unsetenv("POSSIM_HUGE_PAGES");
  CHECK(huge_pages_wanted());
  setenv("POSSIM_HUGE_PAGES", "0", 1);
  CHECK_FALSE(huge_pages_wanted());
  setenv("POSSIM_HUGE_PAGES", "1", 1);
  CHECK(huge_pages_wanted());
  if (was) setenv("POSSIM_HUGE_PAGES", saved.c_str(), 1);
  else unsetenv("POSSIM_HUGE_PAGES");
}

TEST_CASE("the SimGrid process's GLIBC_TUNABLES add glibc.malloc.hugetlb=1 and keep the caller's", "[memory]") {
  CHECK(tunables_with_huge_pages(nullptr) == "glibc.malloc.hugetlb=1");
  CHECK(tunables_with_huge_pages("") == "glibc.malloc.hugetlb=1");
  CHECK(tunables_with_huge_pages("glibc.malloc.tcache_count=0") == "glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1");
  CHECK(tunables_with_huge_pages("glibc.malloc.hugetlb=0") == "glibc.malloc.hugetlb=0");
  CHECK(tunables_with_huge_pages("a=1:glibc.malloc.hugetlb=2:b=3") == "a=1:glibc.malloc.hugetlb=2:b=3");
}
