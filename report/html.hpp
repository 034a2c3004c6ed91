// The report page: one self-contained HTML file, every figure's SVG inline (a relative link
// to its PNG, script and data beside it), each caption saying how the figure was made (the
// provenance of the results it draws), and the measured points in a table with their errors.
// Nothing on the page is fetched from elsewhere.
#pragma once
#include <string>
#include <vector>

#include "report/figure.hpp"

namespace possim::report {

struct RenderedFigure {
  const Figure* figure = nullptr;
  std::string svg;  // inline
};

// "results/x/simgrid/results.json: possim 1a2b3c4, simgrid engine, scenario scenarios/x.json
// (sha256 0123abcd...), profile titanx_maxwell (sha256 ...), seed 1".
std::string provenance_text(const ResultsFile& f);

std::string report_html(const std::string& title, const ReportInputs& in,
                        const std::vector<RenderedFigure>& figures,
                        const std::vector<MeasuredMatch>& matches, const std::vector<std::string>& notes);

}  // namespace possim::report
