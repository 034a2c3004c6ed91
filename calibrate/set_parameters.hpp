// `possim calibrate fit --set NAME=VALUE --set-why TEXT`: parameters held at a value taken
// from elsewhere (another GPU's fit, a microbenchmark) while the others are fitted. The points
// of one GPU may not tell two parameters apart (one precision measured, two compute
// parameters); rather than leave one at its datasheet value, a user carries a measured value
// over and says where it came from. The value lands in the profile with that source.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "model/input/profile.hpp"

namespace possim::calibrate {

struct SetParameter {
  std::string name;  // a name --free takes
  double value = 0;
};

// `base` with each parameter set (relative ones multiply, as a fit's do) and its source
// saying "set to VALUE (not fitted): WHY". Throws InputError naming --set for an unknown
// name, a value outside the parameter's physical range, a name given twice, or an empty WHY.
Profile set_parameters(const Profile& base, const std::vector<SetParameter>& set, const std::string& why);

// NAME=VALUE as --set takes it; throws InputError naming --set.
SetParameter parse_set_parameter(const Profile& base, const std::string& text);

}  // namespace possim::calibrate
