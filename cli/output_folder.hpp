// A results folder written whole or not at all: files go to a temporary folder beside
// the destination and are renamed into place only when every one is written. On any
// error, and on an interrupt (cli/interrupt.hpp), nothing is left behind: not the
// temporary folder, not the parent folders made for it.
#pragma once
#include <string>
#include <vector>

namespace possim::cli {

// Checks that `dest` can be a folder: it is one, or nothing on its path is a file. Throws
// InputError naming `option` (e.g. "--out") otherwise.
void check_output_path(const std::string& dest, const std::string& option);

class OutputFolder {
 public:
  // Checks that `dest` can be a folder: it is one (not a symlink), or nothing on its path
  // is a file; then makes the temporary folder (and missing parents) at once, so that a
  // folder possim cannot write fails before the work. Throws InputError naming `option`
  // (e.g. "--out") otherwise.
  OutputFolder(const std::string& dest, const std::string& option);
  ~OutputFolder();  // removes what an uncommitted folder made
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  // Writes `name` into the temporary folder (made on the first call).
  void write(const std::string& name, const std::string& contents);
  // The temporary folder (made on the first call), for files other programs write (gnuplot).
  const std::string& temp_path();
  // Renames the written files into place: the whole folder when `dest` did not exist,
  // else each file of the temporary folder into it (each rename atomic, replacing an older
  // regular file of that name; anything else there is an InputError, nothing renamed).
  void commit();

 private:
  void make_temp();
  void clean_up() noexcept;

  std::string dest_, option_, temp_;
  std::vector<std::string> made_;   // parent folders made for the temporary one, outermost first
  bool committed_ = false;
};

}  // namespace possim::cli
