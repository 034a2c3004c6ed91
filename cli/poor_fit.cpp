#include "cli/poor_fit.hpp"

#include <iostream>

namespace possim::cli {

bool stop_for_poor_fit(const calibrate::FitVerdict& v, bool accepted, const std::string& command,
                       const std::string& out) {
  if (!v.poor()) return false;
  for (const auto& p : v.problems) std::cerr << "possim: warning: " << command << ": poor fit: " << p << "\n";
  if (accepted) {
    std::cerr << "possim: warning: " << command << ": writing " << out
              << " anyway (--accept-poor-fit); its sources say the fit was accepted as poor\n";
    return false;
  }
  std::cerr << "possim: " << command << ": the fit is poor, so " << out << " was not written (exit "
            << kPoorFitExit << "); --accept-poor-fit writes it anyway\n";
  return true;
}

void note_poor_fit(std::string& source, const calibrate::FitVerdict& v) {
  source += (source.empty() ? "" : "; ") + calibrate::accepted_poor_note(v);
}

}  // namespace possim::cli
