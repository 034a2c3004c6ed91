#pragma once
#include <string>

namespace possim::cli {

// possim validate SCENARIO --live (cli/validate_live.cpp). Returns the exit status.
int validate_live(const std::string& scenario_path, double tolerance, const std::string& json_out);

}  // namespace possim::cli
