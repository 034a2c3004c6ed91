// What the calibrate commands do with a poor fit (calibrate/fit_quality.hpp says what one
// is): a warning on stderr naming each problem, and then either no profile written and exit
// kPoorFitExit, or, with --accept-poor-fit, the profile written with its sources saying so.
#pragma once
#include <string>

#include "calibrate/fit_quality.hpp"

namespace possim::cli {

// Distinct from bad input's 2 and a failure's 1: the measurement ran, its fit is not trusted.
inline constexpr int kPoorFitExit = 3;

// Prints the warning when v is poor; true when the command must stop without writing `out`
// (poor, and not accepted).
bool stop_for_poor_fit(const calibrate::FitVerdict& v, bool accepted, const std::string& command,
                       const std::string& out);

// Appends accepted_poor_note(v) to a source note.
void note_poor_fit(std::string& source, const calibrate::FitVerdict& v);

}  // namespace possim::cli
