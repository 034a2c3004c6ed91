// Where a result came from: the inputs' files and their hashes, the engine, the seed and
// possim's version, as results.json records them ("provenance"). A figure or a table made
// from results can name all of it, and `sha256sum FILE` tells whether a file is still the
// one that was used.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "model/input/scenario.hpp"

namespace possim {

// {"hash": "sha256", "possim_version", "engine", "seed",
//  "scenario": {path, sha256}, "model": {name, ref, sha256 (null for a zoo model)},
//  "profile": {name, path, sha256}}
nlohmann::json provenance_json(const Scenario& s, const std::string& engine);

}  // namespace possim
