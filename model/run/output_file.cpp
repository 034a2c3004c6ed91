#include "model/run/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/run/child_processes.hpp"

namespace possim {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail_errno(const std::string& path, const std::string& what, int err) {
  throw std::runtime_error(path + ": " + what + ": " + std::strerror(err));
}

std::string where(const std::string& path, const std::string& option) { return option.empty() ? path : option; }

const char* kExpected = "a path for a new file, or a regular file to replace";

}  // namespace

std::string non_regular_kind(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  return file_kind(st.st_mode);
}

void check_output_file(const std::string& path, const std::string& option) {
  if (path.empty()) throw InputError(where(path, option), "", "is empty", kExpected);
  if (path.back() == '/') throw InputError(where(path, option), "", "'" + path + "' names a folder", kExpected);
  const std::string kind = non_regular_kind(path);
  if (!kind.empty())
    throw InputError(where(path, option), "", "'" + path + "' is " + kind + ", not a regular file", kExpected);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return;  // a regular file: replaced
  // Absent: the nearest ancestor that exists must be a folder possim may write in.
  const fs::path p = fs::absolute(fs::path(path)).lexically_normal();
  const fs::path q = nearest_existing(p.parent_path());
  if (q.empty()) return;
  if (!fs::is_directory(q))
    throw InputError(where(path, option), "", "'" + path + "' is under '" + q.string() + "', which is not a folder",
                     kExpected);
  if (::access(q.c_str(), W_OK | X_OK) != 0)
    throw InputError(where(path, option), "", "cannot write in '" + q.string() + "': " + std::strerror(errno),
                     "a folder possim may write to");
}

std::filesystem::path nearest_existing(const std::filesystem::path& p) {
  for (fs::path q = p; !q.empty(); q = q.parent_path()) {
    std::error_code ec;
    if (fs::status(q, ec).type() != fs::file_type::not_found) return q;
    if (q == q.root_path()) break;
  }
  return {};
}

int create_new_file(const std::string& path) {
  int fd;
  while ((fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666)) < 0 &&
         errno == EINTR) {
  }
  if (fd < 0) fail_errno(path, "cannot create", errno);
  return fd;
}

void write_all(int fd, const std::string& data, const std::string& path) {
  for (std::size_t done = 0; done < data.size();) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(path, "write failed", errno);
    if (n == 0) fail_errno(path, "write failed", ENOSPC);
    done += std::size_t(n);
  }
}

void write_file_atomic(const std::string& path, const std::string& contents, const std::string& option) {
  check_output_file(path, option);
  const fs::path p(path);
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error(folder.string() + ": cannot make folder: " + ec.message());
  // A fresh name per call: two writers (threads, or a killed run's leftover) never share one.
  static std::atomic<unsigned> serial{0};
  const std::string tmp = (folder / ("." + p.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(serial++)))
                              .string();
  const int fd = create_new_file(tmp);
  const int hook = child_processes::on_stop([tmp] { ::unlink(tmp.c_str()); });
  const auto discard = [&] {
    ::unlink(tmp.c_str());
    child_processes::forget_on_stop(hook);
  };
  try {
    write_all(fd, contents, path);
    if (::fsync(fd) != 0) fail_errno(path, "write failed", errno);
  } catch (...) {
    ::close(fd);
    discard();
    throw;
  }
  if (::close(fd) != 0) {
    const int err = errno;
    discard();
    fail_errno(path, "write failed", err);
  }
  // Checked again just before the rename: what appeared meanwhile is not replaced either.
  const std::string kind = non_regular_kind(path);
  if (!kind.empty()) {
    discard();
    throw InputError(where(path, option), "", "'" + path + "' is " + kind + ", not a regular file", kExpected);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    discard();
    fail_errno(path, "cannot rename into place", err);
  }
  child_processes::forget_on_stop(hook);
}

}  // namespace possim
