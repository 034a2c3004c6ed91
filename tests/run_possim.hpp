// Running the possim binary as a user does (a shell command in a folder), and scratch
// folders for what it writes. Header-only: used by the CLI and calibrate tests.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace possim::test {

struct Output {
  int status = -1;  // exit status; -1 when possim did not exit normally
  std::string out, err;
};

// Runs possim with args (shell syntax) in folder `cwd`; stdout and stderr captured
// separately (stderr through cwd/stderr.txt).
inline Output run_possim(const std::string& args, const std::filesystem::path& cwd =
                                                      std::filesystem::temp_directory_path()) {
  const std::filesystem::path err_file = cwd / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && '" + POSSIM_BINARY + "' " + args + " 2>'" +
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
  return o;
}

// An empty folder <tmp>/possim_<group>_<name>_<pid>, made afresh.
inline std::filesystem::path scratch(const std::string& group, const std::string& name) {
  const std::filesystem::path d =
      std::filesystem::temp_directory_path() /
      ("possim_" + group + "_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace possim::test
