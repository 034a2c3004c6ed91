// The error bars of a run on a fitted profile (calibrate/uncertainty.hpp): the reruns at
// the covariance's sigma points, with progress, and how a table shows them.
#pragma once
#include <string>
#include <vector>

#include "calibrate/uncertainty.hpp"
#include "model/run/engine.hpp"
#include "model/run/sweep.hpp"

namespace possim::cli {

// Reruns `s` at its sigma points with `engine` and sets each result's interval. Returns
// the axes used (empty: the profile has no covariance, or none the scenario reads, and
// nothing ran). `progress`: a line on a terminal while the reruns go.
calibrate::SigmaAxes add_intervals(const Scenario& s, const Engine& engine, int jobs, std::vector<Result>& results,
                                   bool progress);

// The same for one point of a sweep (`p` of `s`), its reruns one at a time: sets r's interval.
void add_point_interval(const Scenario& s, const SweepPoint& p, const Engine& engine, Result& r);

// "34.1-36.9": a 95% interval of images/s, to the table's one decimal.
std::string images_interval(const Result& r);

}  // namespace possim::cli
