// SIGINT and SIGTERM during a SimGrid sweep: possim kills every simulation it forked,
// writes nothing, and exits 130 or 143 within a second (issue 9).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "run_possim.hpp"

namespace fs = std::filesystem;

namespace {

// Processes in process group `pgrp` (field 5 of /proc/PID/stat), other than `except`.
std::set<pid_t> group_members(pid_t pgrp, pid_t except) {
  std::set<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string stat;
    if (!std::getline(f, stat)) continue;
    const auto close = stat.rfind(')');  // the command name may hold spaces
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    long ppid = 0, group = 0;
    rest >> state >> ppid >> group;
    const pid_t pid = pid_t(std::stol(name));
    if (group == pgrp && pid != except && state != 'Z') out.insert(pid);
  }
  return out;
}

// Starts possim in its own process group (so that its children can be found after it
// is gone), in `dir`, output to files there.
pid_t start_possim(const fs::path& dir, const std::string& scenario) {
  const std::string binary = possim::test::possim_binary();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (chdir(dir.c_str()) != 0) _exit(127);
    const int out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, 1);
    dup2(err, 2);
    execl(binary.c_str(), binary.c_str(), "run", scenario.c_str(), "--engine", "simgrid",
          "--all-iterations", "--jobs", "2", "-q", static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also here: no race with the child's own call
  return pid;
}

void interrupt_sweep(int sig, int expected_status) {
  const fs::path dir = possim::test::scratch("interrupt", std::to_string(sig));
  // Points that each take many seconds: the sweep is far from done when the signal comes.
  std::ofstream(dir / "long.json") << R"({"name": "long", "model": "vgg19", "batch_per_gpu": 32,
    "cluster": {"nodes": [16, 24, 32], "nic_gbps": [10]}, "strategies": ["ps", "poseidon"],
    "iterations": 20})";
  const pid_t pid = start_possim(dir, "long.json");
  REQUIRE(pid > 0);
  // About a second in, with simulations running.
  const auto t0 = std::chrono::steady_clock::now();
  std::set<pid_t> children;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (pid_t c : group_members(pid, pid)) children.insert(c);
    if (!children.empty() && std::chrono::steady_clock::now() - t0 > std::chrono::seconds(1)) break;
  }
  REQUIRE_FALSE(children.empty());
  const auto sent = std::chrono::steady_clock::now();
  REQUIRE(kill(pid, sig) == 0);
  int status = 0;
  // Bounded wait: a possim that ignored the signal is killed, and the test fails.
  pid_t done = 0;
  while ((done = waitpid(pid, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() - sent < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  if (done == 0) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  const std::set<pid_t> left = group_members(pid, -1);
  for (pid_t p : left) kill(p, SIGKILL);  // never leave processes behind, even on failure
  std::ifstream e(dir / "err.txt");
  const std::string err((std::istreambuf_iterator<char>(e)), {});
  INFO("signal " << sig << ", stderr: " << err << ", " << took << " s");
  CHECK(done == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == expected_status);
  CHECK(took < 1.0);
  CHECK(left.empty());
  CHECK(err.empty());
  // Nothing written: no results folder, no temporary folder beside it.
  std::set<std::string> files;
  for (const auto& f : fs::directory_iterator(dir)) files.insert(f.path().filename().string());
  CHECK(files == std::set<std::string>{"long.json", "out.txt", "err.txt"});
  fs::remove_all(dir);
}

}  // namespace

TEST_CASE("SIGINT during a SimGrid sweep: every simulation ends, nothing is written, exit 130",
          "[cli][interrupt]") {
  interrupt_sweep(SIGINT, 130);
}

TEST_CASE("SIGTERM during a SimGrid sweep: every simulation ends, nothing is written, exit 143",
          "[cli][interrupt]") {
  interrupt_sweep(SIGTERM, 143);
}
