// Writing a Profile as "possim-profile-1" JSON (the format model/profile.cpp reads), and
// the calibration sidecar that sits next to it (NAME.calibration.json) with everything
// the profile format has no field for: library versions, algorithms, copy curves, fits.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "model/input/profile.hpp"

namespace possim::calibrate {

// Fields in the format's order (ordered_json), as a person would write the file.
nlohmann::ordered_json profile_to_json(const Profile& p);

// PATH.json -> PATH.calibration.json (PATH + ".calibration.json" when it has no .json).
std::string sidecar_path(const std::string& profile_path);

// Write the profile and its sidecar atomically; the profile is re-read with parse_profile
// first, so a profile that possim would reject is never written. The sidecar gets a
// "profile" field naming the profile file.
void write_profile_with_sidecar(const Profile& p, nlohmann::json sidecar, const std::string& path);

}  // namespace possim::calibrate
