#include "cli/output_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli/interrupt.hpp"
#include "model/input/error.hpp"
#include "model/run/output_file.hpp"

namespace possim::cli {

namespace fs = std::filesystem;

namespace {

// The destination as an absolute path without a trailing separator ("out/" -> /cwd/out).
fs::path normal(const std::string& dest) {
  fs::path p = fs::absolute(fs::path(dest)).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p;
}

}  // namespace

void check_output_path(const std::string& dest, const std::string& option) {
  if (dest.empty()) throw InputError(option, "", "is empty", "a folder path");
  const fs::path p = normal(dest);
  if (p == p.root_path()) throw InputError(option, "", "'" + dest + "' is the root folder", "a folder path");
  // The folder itself, if it exists, is a folder and not a link to one: what is written
  // goes where the user named, not where a link (planted in a shared results tree) points.
  std::error_code lec;
  if (fs::symlink_status(p, lec).type() == fs::file_type::symlink)
    throw InputError(option, "", "'" + dest + "' is a symlink", "a folder path (existing or new), not a link; give the folder it points to");
  // The nearest part of the path that exists must be a folder.
  const fs::path q = nearest_existing(p);
  if (!q.empty() && !fs::is_directory(q))
    throw InputError(option, "",
                     q == p ? "'" + dest + "' exists and is not a folder"
                            : "'" + dest + "' is under '" + q.string() + "', which is not a folder",
                     "a folder path (existing or new)");
}

OutputFolder::OutputFolder(const std::string& dest, const std::string& option)
    : dest_(dest), option_(option) {
  check_output_path(dest, option);
  make_temp();  // before the work: a folder possim cannot make fails now, not after hours
}

OutputFolder::~OutputFolder() {
  if (!committed_) clean_up();
}

void OutputFolder::make_temp() {
  const fs::path p = normal(dest_);
  // Parent folders first, remembered so that a failure can remove them again.
  std::vector<fs::path> missing;
  for (fs::path q = p.parent_path(); !q.empty() && q != q.root_path(); q = q.parent_path()) {
    std::error_code ec;
    if (fs::exists(q, ec)) break;
    missing.push_back(q);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    remove_on_interrupt(it->string());
    made_.push_back(it->string());
    if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST)
      throw InputError(option_, "", "cannot make folder '" + it->string() + "': " + std::strerror(errno),
                       "a folder path possim may write to");
  }
  const fs::path temp = p.parent_path() / ("." + p.filename().string() + ".tmp-" + std::to_string(::getpid()));
  temp_ = temp.string();
  remove_on_interrupt(temp_);
  std::error_code ec;
  fs::remove_all(temp, ec);  // a leftover of a killed run with the same pid
  if (::mkdir(temp.c_str(), 0777) != 0)
    throw InputError(option_, "", "cannot make folder '" + temp_ + "': " + std::strerror(errno),
                     "a folder path possim may write to");
}

void OutputFolder::write(const std::string& name, const std::string& contents) {
  if (temp_.empty()) make_temp();
  const std::string file = (fs::path(temp_) / name).string();
  const int fd = create_new_file(file);  // the temporary folder is possim's own: nothing is there
  try {
    write_all(fd, contents, file);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw std::runtime_error(file + ": write failed: " + std::strerror(errno));
}

const std::string& OutputFolder::temp_path() {
  if (temp_.empty()) make_temp();
  return temp_;
}

void OutputFolder::commit() {
  const fs::path p = normal(dest_);
  std::error_code ec;
  if (!fs::exists(p, ec)) {
    fs::rename(temp_, p, ec);
    if (ec) throw std::runtime_error(dest_ + ": cannot rename the results into place: " + ec.message());
  } else {
    // Each file replaces only a regular file of its name: never a link, a FIFO, a device
    // or a folder put there (checked for all before any is renamed).
    if (fs::symlink_status(p, ec).type() != fs::file_type::directory)
      throw InputError(option_, "", "'" + dest_ + "' is no longer a folder", "a folder path");
    for (const auto& entry : fs::directory_iterator(temp_)) {
      const std::string there = (p / entry.path().filename()).string();
      const std::string kind = non_regular_kind(there);
      if (!kind.empty())
        throw InputError(option_, "", "'" + there + "' is " + kind + ", which possim does not replace",
                         "a results folder holding only regular files");
    }
    for (const auto& entry : fs::directory_iterator(temp_)) {
      const fs::path name = entry.path().filename();
      fs::rename(entry.path(), p / name, ec);
      if (ec) throw std::runtime_error((p / name).string() + ": cannot rename into place: " + ec.message());
    }
    fs::remove(temp_, ec);
  }
  committed_ = true;
  forget_on_interrupt(temp_);
  for (const auto& m : made_) forget_on_interrupt(m);
}

void OutputFolder::clean_up() noexcept {
  std::error_code ec;
  if (!temp_.empty()) {
    fs::remove_all(temp_, ec);
    forget_on_interrupt(temp_);
  }
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
    fs::remove(*it, ec);  // only if empty: something else may have appeared in it
    forget_on_interrupt(*it);
  }
}

}  // namespace possim::cli
