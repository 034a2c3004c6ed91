// Running the possim binary as a user does (a shell command in a folder), and scratch
// folders for what it writes. Header-only: used by the CLI and calibrate tests.
#pragma once
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace possim::test {

// A loopback port nobody holds now, for a coordinator: below Linux's ephemeral range
// (32768-60999), so that no other test's outgoing connection takes it before it is bound.
inline int free_loopback_port() {
  for (int k = 0; k < 200; ++k) {
    const int port = 20000 + int((::getpid() + 7919 * k) % 12000);
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(std::uint16_t(port));
    const bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    if (fd >= 0) ::close(fd);
    if (ok) return port;
  }
  return 20000 + int(::getpid() % 12000);
}

struct Output {
  int status = -1;  // exit status; -1 when possim did not exit normally
  std::string out, err;
};

// The binary under test: this build's, or $POSSIM_TEST_BINARY (to run the CLI tests
// against another build, e.g. to see a new test fail before its fix).
inline std::string possim_binary() {
  const char* other = std::getenv("POSSIM_TEST_BINARY");
  return other && *other ? other : POSSIM_BINARY;
}

// Runs a command line (shell syntax) in folder `cwd`; stdout and stderr captured
// separately (stderr through err_dir/stderr.txt, err_dir being cwd unless given: a command
// run in the repository keeps its stderr out of it). With timeout_s > 0, it is killed after
// that long (status 124), so that a test of a hang fails instead of hanging.
inline Output run_command(const std::string& command_line, const std::filesystem::path& cwd,
                          int timeout_s = 0, const std::filesystem::path& err_dir = {}) {
  const std::filesystem::path err_file = (err_dir.empty() ? cwd : err_dir) / "stderr.txt";
  const std::string limit =
      timeout_s > 0 ? "timeout -k 2 " + std::to_string(timeout_s) + " " : std::string();
  const std::string cmd = "cd '" + cwd.string() + "' && " + limit + command_line + " 2>'" +
                          err_file.string() + "'";
  Output o;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) o.out.append(buf.data(), n);
  const int raw = pclose(p);
  o.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  std::ifstream e(err_file);
  o.err.assign(std::istreambuf_iterator<char>(e), {});
  if (timeout_s > 0 && o.status == 124) WARN("killed after " << timeout_s << " s: " << command_line);
  return o;
}

// Runs possim with args (shell syntax) in folder `cwd`, as run_command. By default a
// command still running after 20 minutes is killed (status 124) and named: a hang then
// fails its test, saying which command, before ctest's limit (25 minutes) kills the test
// silently.
inline Output run_possim(const std::string& args,
                         const std::filesystem::path& cwd = std::filesystem::temp_directory_path(),
                         int timeout_s = 1200) {
  return run_command("'" + possim_binary() + "' " + args, cwd, timeout_s);
}

// Lines of a message: a refused input gets exactly one.
inline int count_lines(const std::string& s) { return int(std::count(s.begin(), s.end(), '\n')); }

// Writes `text` as the whole of file `p`.
inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// A file's bytes ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

// An empty folder <tmp>/possim_<group>_<name>_<pid>, made afresh: a folder of one test's
// own, removed when the test ends, passed or failed (a REQUIRE unwinds through it): hold it
// as `const auto dir = scratch(...)`.
class ScratchDir : public std::filesystem::path {
 public:
  explicit ScratchDir(std::filesystem::path p) : std::filesystem::path(std::move(p)) {}
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(*this, ec);
  }
};

inline ScratchDir scratch(const std::string& group, const std::string& name) {
  std::filesystem::path d =
      std::filesystem::temp_directory_path() /
      ("possim_" + group + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return ScratchDir(std::move(d));
}

}  // namespace possim::test
