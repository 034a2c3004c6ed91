#include "model/input/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "model/input/error.hpp"
#include "model/input/limits.hpp"
#include "model/input/text.hpp"

namespace possim {

const char* file_kind(unsigned mode) {
  const mode_t m = mode_t(mode);
  if (S_ISLNK(m)) return "a symlink";
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

std::string read_input_file(const std::string& path, const std::string& what,
                            const std::string& expected, std::uint64_t max_bytes) {
  const auto fail = [&](const std::string& problem) { throw InputError(path, "", problem, expected); };
  const std::string limit = std::to_string(max_bytes >> 20) + " MiB";
  // Results, provenance and messages name the files possim read: JSON can hold only UTF-8.
  if (!is_utf8(path)) fail("the path of the " + what + " is not UTF-8 text, which results cannot record (rename it)");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    fail("cannot read the " + what + ": " + std::strerror(errno));
  // Checked before open: opening a FIFO for reading blocks until a writer comes.
  if (!S_ISREG(st.st_mode)) fail("the " + what + " is " + file_kind(st.st_mode) + ", not a regular file");
  if (std::uint64_t(st.st_size) > max_bytes)
    fail("the " + what + " is " + std::to_string(st.st_size) + " bytes, over the " + limit + " limit");
  // O_NONBLOCK: should the path have been swapped for a FIFO since stat, open does not wait.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail("cannot read the " + what + ": " + std::strerror(errno));
  std::string text;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("the " + what + " is not a regular file");
  }
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      fail("cannot read the " + what + ": " + std::strerror(err));
    }
    if (n == 0) break;
    text.append(buf, std::size_t(n));
    if (text.size() > max_bytes) {  // grew while we read it
      ::close(fd);
      fail("the " + what + " is over the " + limit + " limit");
    }
  }
  ::close(fd);
  return text;
}

}  // namespace possim
