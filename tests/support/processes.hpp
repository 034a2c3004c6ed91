// Starting possim in a process group of its own and finding what is left of that group:
// the tests that interrupt possim check that no simulation outlives it. Header-only.
#pragma once
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
#include <vector>

#include "support/run_possim.hpp"

namespace possim::test {

// Processes in process group `pgrp` (field 5 of /proc/PID/stat), other than `except`.
inline std::set<pid_t> group_members(pid_t pgrp, pid_t except) {
  namespace fs = std::filesystem;
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

// Starts possim with `args` in its own process group (so that its children can be found
// after it is gone), in `dir`, stdout and stderr to out.txt and err.txt there.
inline pid_t start_possim(const std::filesystem::path& dir, const std::vector<std::string>& args) {
  const std::string binary = possim_binary();
  std::vector<std::string> all = {binary};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (chdir(dir.c_str()) != 0) _exit(127);
    const int out = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int err = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, 1);
    dup2(err, 2);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here: no race with the child's own call
  return pid;
}

// Waits up to `limit` for `pid`; kills its group if it is still there. Returns the wait
// status, and the seconds it took in `took_s`.
inline int wait_bounded(pid_t pid, std::chrono::seconds limit, double& took_s, bool& exited) {
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() - t0 < limit)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  exited = done == pid;
  if (done == 0) {
    kill(-pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  return status;
}

}  // namespace possim::test
