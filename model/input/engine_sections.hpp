// A scenario's settings for one engine ("live": {...}) belong to that engine: registering
// it (model/run/engine_registry.hpp) declares the section's key and how it is checked. The
// scenario reader accepts the declared keys, checks each section where it stands (an
// error names the file and the field) and keeps it as written for the engine to read.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/input/json_check.hpp"

namespace possim {

// Throws InputError (through r) naming `key`.field for a section the engine cannot read.
using EngineSectionCheck = void (*)(const nlohmann::json& section, const json_check::Reader& r);

// Declaring a key twice keeps the last check.
void declare_engine_section(const std::string& key, EngineSectionCheck check);
void forget_engine_section(const std::string& key);
// The check of a declared key; nullptr for any other.
EngineSectionCheck engine_section_check(const std::string& key);
// The declared keys, sorted.
std::vector<std::string> engine_section_keys();

}  // namespace possim
