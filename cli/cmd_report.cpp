// placeholder until the report lands
#include "cli/commands.hpp"
#include "model/error.hpp"
namespace possim::cli {
int cmd_report(const std::vector<std::string>&) { throw InputError("possim report: not built yet"); }
}  // namespace possim::cli
