// Fuzz target: a results.json as `possim report` reads it (report::add_results_text), then
// the report's figures made from what it accepted: every gnuplot script they would run
// must keep user text inside quotes (no line break, no comment that continues a line).
// A script that breaks that is a finding (abort), as a crash is.
#include <cstdlib>
#include <sstream>

#include "fuzz/harness.hpp"
#include "report/figure.hpp"
#include "report/gnuplot.hpp"

namespace {

void check_script(const std::string& script) {
  std::istringstream in(script);
  for (std::string line; std::getline(in, line);) {
    for (const char c : line)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) std::abort();
    if (!line.empty() && line[0] == '#' && line.back() == '\\') std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return possim::fuzz::run_one(data, size, [](const std::string& text) {
    using namespace possim::report;
    ReportInputs in;
    add_results_text(text, "fuzz.results.json", in);
    FigureSet set;
    add_scaling_figures(in, 4, set);
    add_traffic_figures(in, 4, set);
    add_layer_figures(in, 4, set);
    add_breakdown_figures(in, 4, set);
    add_min_bandwidth_figures(in, 4, set);
    for (const Figure& f : set.figures) check_script(gnuplot_script(f));
  });
}
