#include "report/gnuplot.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "model/run/child_processes.hpp"
#include "model/run/output_file.hpp"
#include "model/run/result_io.hpp"
#include "model/run/version.hpp"

namespace possim::report {

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

// gnuplot `script` in `folder`; its messages go to script.log.
void run_gnuplot(const std::string& folder, const std::string& script, const std::string& log) {
  const pid_t pid = child_processes::spawn();
  if (pid == 0) {
    if (::chdir(folder.c_str()) != 0) _exit(126);
    const int null = ::open("/dev/null", O_RDWR);
    const int err = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null >= 0) ::dup2(null, 0), ::dup2(null, 1);
    if (err >= 0) ::dup2(err, 2);
    ::execlp("gnuplot", "gnuplot", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const int status = child_processes::wait(pid);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    throw std::runtime_error("gnuplot not found (Debian: apt-get install gnuplot-nox)");
  // gnuplot ends with the line that stopped it ("fig.gp" line 12: undefined variable: x).
  std::istringstream lines(slurp(fs::path(folder) / log));
  std::string last, line;
  while (std::getline(lines, line))
    if (line.find_first_not_of(" ^\t") != std::string::npos) last = line;
  throw std::runtime_error("gnuplot failed on " + script + (last.empty() ? "" : ": " + last));
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  return out;
}

}  // namespace

std::string gnuplot_script(const Figure& f) {
  const std::string size = std::to_string(f.width) + "," + std::to_string(f.height);
  return "# " + gp_text(f.title) + "\n# Written by possim report (possim " + possim_version() +
         "). Run `gnuplot " + f.id + ".gp` in this folder\n# to draw " + f.id + ".svg and " + f.id +
         ".png again from " + f.id + ".dat.\n"
         "set datafile separator '\\t'\nset encoding utf8\n"
         "set terminal svg size " + size + " dynamic noenhanced font 'Sans,12' background rgb 'white'\n"
         "set output '" + f.id + ".svg'\n" + f.plot +
         "set terminal pngcairo size " + size + " noenhanced font 'Sans,10' background rgb 'white'\n"
         "set output '" + f.id + ".png'\nreplot\nunset output\n";
}

std::string render(const Figure& f, const std::string& folder) {
  const fs::path dir(folder);
  write_file_atomic((dir / (f.id + ".dat")).string(), f.data);
  write_file_atomic((dir / (f.id + ".gp")).string(), gnuplot_script(f));
  const std::string log = f.id + ".log";
  run_gnuplot(folder, f.id + ".gp", log);
  std::error_code ec;
  fs::remove(dir / log, ec);
  const std::string svg = slurp(dir / (f.id + ".svg"));
  const auto start = svg.find("<svg");
  if (start == std::string::npos) throw std::runtime_error("gnuplot wrote no SVG for " + f.id);
  // Inline, each figure's ids (gnuplot names them alike in every SVG) get its id in front,
  // so that a page of several figures has each id once; the tooltip is the figure's title.
  std::string out = replace_all(svg.substr(start), "gnuplot_", f.id + "-");
  out = replace_all(out, "gpPt", f.id + "-gpPt");
  out = replace_all(out, "gpDot", f.id + "-gpDot");
  return replace_all(out, "<title>Gnuplot</title>", "<title>" + xml_escape(f.title) + "</title>");
}

}  // namespace possim::report
