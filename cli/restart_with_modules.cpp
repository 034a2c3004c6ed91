// Linked into the statically linked possim only (cli/CMakeLists.txt). A process without a
// dynamic loader cannot open the SimGrid engine's or the CUDA backend's module, so a
// command that needs one starts over as possim-modules, this program dynamically linked,
// beside it: the same arguments, environment and process id (its parent, a terminal's
// signal and mpirun still see one process, and its exit status is the command's).
// Commands open their modules before their first side effect (model/run/module_host.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/run/memory.hpp"
#include "model/run/module_host.hpp"

namespace possim::cli {

namespace {

// This process's arguments as it was started, argv[0] included.
std::vector<std::string> own_arguments() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t end = all.find('\0', at);
    args.push_back(all.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return args;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// The process main() runs in: a process forked from it (a live node, a SimGrid point) that
// reached a module would start the whole command again; its parent should have opened
// the module before forking.
const pid_t started_as = ::getpid();

[[noreturn]] void restart_with_modules(const char* what) {
  if (::getpid() != started_as)
    throw std::logic_error(std::string(what) + " was reached in a process forked from possim, which cannot restart as "
                           "possim-modules: the command should open it before forking");
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error(std::string(what) + " needs possim-modules, and this program cannot find itself: " + ec.message());
  const std::string twin = (self.parent_path() / "possim-modules").string();
  const auto missing = [&](const std::string& why) {
    return std::runtime_error(std::string(what) + " runs in possim-modules (this possim is linked statically and opens no module), and " +
                              twin + " " + why + " (build it with cmake --build build)");
  };
  if (::access(twin.c_str(), X_OK) != 0) throw missing(std::string("cannot be run: ") + std::strerror(errno));
  // A copy of this program in its place would restart itself for ever.
  if (same_file(twin, "/proc/self/exe")) throw missing("is a statically linked possim again, not possim-modules");
  std::vector<std::string> args = own_arguments();
  if (args.empty()) throw missing("cannot be given this command: /proc/self/cmdline is empty");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // A simulation's heap grows to GiBs in small blocks: glibc's malloc is asked to back what
  // it gets from the kernel with 2 MiB pages (transparent huge pages, where offered), as
  // keep_freed_memory() does for this process's first 8 MiB (and, as there,
  // POSSIM_HUGE_PAGES=0 says no). glibc reads it at start only, hence here; a value the
  // caller set is kept. The first touch of a 4 KiB page costs 8.5 us on this project's
  // VMs; bench/results/huge_pages.md has what the 2 MiB pages save.
  if (huge_pages_wanted())
    ::setenv("GLIBC_TUNABLES", tunables_with_huge_pages(std::getenv("GLIBC_TUNABLES")).c_str(), 1);
  // Nothing is written before a module opens; what a stream still holds is said once.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::execv(twin.c_str(), argv.data());
  throw missing(std::string("cannot be started: ") + std::strerror(errno));
}

// Before main: a fallback registered by constant-initialised storage (module_host.cpp).
[[maybe_unused]] const bool registered = (set_module_fallback(&restart_with_modules), true);

}  // namespace

}  // namespace possim::cli
