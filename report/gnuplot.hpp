// Drawing a figure with gnuplot: id.dat and id.gp written into a folder, gnuplot run there
// (a child process tracked like the simulations, so an interrupt ends it), id.svg and id.png
// made by the script. The script stays beside the pictures: `gnuplot id.gp` in that folder
// draws them again, and is the place to change a figure by hand.
#pragma once
#include <string>

#include "report/figure.hpp"

namespace possim::report {

// The script as written to id.gp.
std::string gnuplot_script(const Figure& f);

// Writes the figure's files into `folder` and runs gnuplot; returns the SVG as it goes inline
// into HTML (no XML prolog, no DOCTYPE). Throws std::runtime_error naming the figure and
// gnuplot's first error line when gnuplot fails or is missing.
std::string render(const Figure& f, const std::string& folder);

}  // namespace possim::report
