// A sweep's finished points, one JSON object per line (points.jsonl in its folder):
//   {"key": "<sha256 of the point's inputs>", "values": {axis: value}, "result": {...}}
// Each line is appended and fsync'd as its point finishes, so that an interrupted or
// crashed sweep resumes where it stopped and skips what it has. A last line cut short
// (a crash in mid-write) is ignored on reading and cut off before the next append.
#pragma once
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "model/input/json_check.hpp"
#include "model/run/result.hpp"

namespace possim {

using PointRecords = std::map<std::string, nlohmann::json>;  // key -> record

// A further check of each record against what the reader knows (the sweep's points):
// called with the record's key, the record, its result and a reader naming FILE:LINE.
using RecordCheck = std::function<void(const std::string& key, const nlohmann::json& record, const Result& result,
                                       const json_check::Reader& where)>;

// The records of a points file, none when it does not exist. Checked like every input (a
// regular file within limits::kMaxPointsFileBytes; not a symlink: possim appends to this
// file, and must not write through a link; each line a record whose result
// result_from_json reads, then `check`); a bad line is an InputError naming FILE:LINE.
PointRecords read_points(const std::string& path, const RecordCheck& check = {});
// The records of a points file's text (`path` names it in messages), checked as above.
PointRecords parse_points(const std::string& text, const std::string& path, const RecordCheck& check = {});

// One record as its line, '\n' included.
std::string point_line(const std::string& key, const nlohmann::json& values, const Result& r);
// The result of a record.
Result record_result(const nlohmann::json& record);

// Appends lines to a points file, each made durable before append() returns.
class PointWriter {
 public:
  explicit PointWriter(std::string path) : path_(std::move(path)) {}
  ~PointWriter();
  PointWriter(const PointWriter&) = delete;
  PointWriter& operator=(const PointWriter&) = delete;

  // The first call makes the file's folder (and its parents) if missing and cuts off a last
  // line left unfinished by a crash. Refuses a file that is not a regular one (a symlink,
  // a FIFO, a device: InputError); I/O failures (a full disk) are std::runtime_error
  // naming the file.
  void append(const std::string& line);

 private:
  void open();
  std::string path_;
  int fd_ = -1;
};

}  // namespace possim
