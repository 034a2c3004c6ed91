// Layer JSON: a network as a file, so users can bring their own model.
// `possim models show NAME --json` writes it; a scenario's "model" may name such a file.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "model/workload/network.hpp"

namespace possim {

nlohmann::json network_to_json(const Network& net);
// Throws InputError naming `where` and the offending field (e.g. "layers[3].kind").
Network network_from_json(const nlohmann::json& j, const std::string& where);
// A zoo name, or a path to a layer JSON (relative paths resolve against base_dir).
Network load_network(const std::string& ref, const std::string& base_dir);

}  // namespace possim
