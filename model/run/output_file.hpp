// Writing possim's outputs: only regular files, only where asked, whole or not at all.
// A target that exists and is not a regular file (a symlink, a folder, a device, a FIFO,
// a socket) is refused, never replaced or written through: `--json /dev/null` run as root
// must not swap the machine's /dev/null for a file. New files are opened with O_EXCL and
// O_NOFOLLOW, so that nothing planted at the name (a symlink to ~/.bashrc) is followed.
#pragma once
#include <filesystem>
#include <string>

namespace possim {

// What an existing path is, as a message says it ("a symlink", "a character device", ...),
// without following a symlink; "" when nothing is there or it is a regular file.
std::string non_regular_kind(const std::string& path);

// Checks, before any long work, that `path` can receive a file: not empty, absent or a
// regular file, and its nearest existing ancestor a folder (parents made later are fine).
// InputError naming `option` ("--json") and the path otherwise.
void check_output_file(const std::string& path, const std::string& option);

// `p` or its nearest ancestor that exists (following symlinks), or an empty path when
// none does.
std::filesystem::path nearest_existing(const std::filesystem::path& p);

// Writes `contents` to `path` whole: into a new temporary file beside it (removed again on
// failure or on SIGINT/SIGTERM), flushed to disk, then renamed over `path`. Makes missing
// parent folders. Refuses a target that is not a regular file (InputError naming `option`
// or the path); a failed write (a full disk) is a std::runtime_error naming the path.
void write_file_atomic(const std::string& path, const std::string& contents,
                       const std::string& option = "");

// The writing primitives the other writers share (the results folder, points.jsonl).
// Opens a new file for writing, failing if anything exists at `path` (O_EXCL, O_NOFOLLOW).
// Throws std::runtime_error naming the path.
int create_new_file(const std::string& path);
// Writes all of `data` to `fd` (EINTR retried; ENOSPC and every other error thrown naming
// `path`).
void write_all(int fd, const std::string& data, const std::string& path);

}  // namespace possim
