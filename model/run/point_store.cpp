#include "model/run/point_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "model/input/error.hpp"
#include "model/input/input_file.hpp"
#include "model/input/json_check.hpp"
#include "model/input/limits.hpp"
#include "model/run/output_file.hpp"
#include "model/run/result_io.hpp"

namespace possim {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool is_key(const json& v) {
  if (!v.is_string() || v.get<std::string>().size() != 64) return false;
  for (const char c : v.get<std::string>())
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

[[noreturn]] void fail_errno(const std::string& path, const std::string& what) {
  throw std::runtime_error(path + ": " + what + ": " + std::strerror(errno));
}

// fsync of a folder, so that a file just made in it survives a crash too.
void sync_folder(const std::string& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail_errno(folder, "cannot open folder");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail_errno(folder, "fsync");
}

}  // namespace

PointRecords read_points(const std::string& path, const RecordCheck& check) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return {};
  const std::string kind = non_regular_kind(path);
  if (!kind.empty())
    throw InputError(path, "", "is " + kind + ", not a regular file (possim appends to it and follows no link)",
                     "a sweep's points.jsonl as possim writes it");
  return parse_points(read_input_file(path, "points file", "a sweep's points.jsonl", limits::kMaxPointsFileBytes),
                      path, check);
}

PointRecords parse_points(const std::string& text, const std::string& path, const RecordCheck& check) {
  PointRecords records;
  const std::string expected = "a JSON object with key (64 hex digits), values and result";
  std::size_t line_no = 0;
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string where = path + ":" + std::to_string(++line_no);
    const json_check::Reader r(where);
    const json record = r.parse(text.substr(start, end - start), expected);
    if (!record.is_object()) r.fail("", json_check::describe(record) + " is not an object", expected);
    r.only_known(record, "", {"key", "values", "result"});
    if (!is_key(r.require(record, "", "key", expected))) r.fail("key", "is not 64 hex digits", expected);
    r.object(r.require(record, "", "values", expected), "values", "an object: axis -> value");
    const Result result = result_from_json(r.require(record, "", "result", expected), r, "result");
    check_derived_rates(record["result"], result, r, "result");
    if (check) check(record["key"].get<std::string>(), record, result, r);
    records[record["key"].get<std::string>()] = record;
  }
  return records;
}

std::string point_line(const std::string& key, const json& values, const Result& r) {
  return json{{"key", key}, {"values", values}, {"result", result_to_json(r)}}.dump() + "\n";
}

Result record_result(const json& record) { return result_from_json(record.at("result")); }

PointWriter::~PointWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void PointWriter::open() {
  const fs::path p(path_);
  std::error_code ec;
  const fs::path folder = p.has_parent_path() ? p.parent_path() : fs::path(".");
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error(folder.string() + ": cannot make folder: " + ec.message());
  const std::string kind = non_regular_kind(path_);
  if (!kind.empty())
    throw InputError(path_, "", "is " + kind + ", not a regular file (possim appends to it and follows no link)",
                     "a sweep's points.jsonl as possim writes it");
  const bool existed = fs::exists(fs::symlink_status(p, ec));
  // O_NOFOLLOW: a symlink put in its place since the check is not followed either.
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd_ < 0) fail_errno(path_, "cannot open");
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail_errno(path_, "fstat");
  if (!S_ISREG(st.st_mode))
    throw InputError(path_, "", "is not a regular file", "a sweep's points.jsonl as possim writes it");
  // A last line without its newline was cut short: the point is run again.
  off_t keep = st.st_size;
  char c = 0;
  while (keep > 0 && ::pread(fd_, &c, 1, keep - 1) == 1 && c != '\n') --keep;
  if (keep != st.st_size && ::ftruncate(fd_, keep) != 0) fail_errno(path_, "cannot cut off the unfinished last line");
  if (!existed) sync_folder(folder.string());
}

void PointWriter::append(const std::string& line) {
  if (fd_ < 0) open();
  write_all(fd_, line, path_);
  if (::fdatasync(fd_) != 0) fail_errno(path_, "fdatasync");
}

}  // namespace possim
