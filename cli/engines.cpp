#include "cli/commands.hpp"
#include "model/analytic/analytic_engine.hpp"
#include "model/error.hpp"

namespace possim::cli {

std::string default_engine() { return "analytic"; }
std::string engine_names() { return "analytic"; }

std::unique_ptr<Engine> make_engine(const std::string& name) {
  if (name == "analytic") return std::make_unique<AnalyticEngine>();
  throw InputError("--engine", "unknown engine '" + name + "'", engine_names());
}

}  // namespace possim::cli
