// possim's engines, registered in one call by every program that runs or reads them (the
// CLI, the tests, the fuzz targets): simgrid first (the default, loaded from its module on
// first use: engines/simgrid_module.hpp), then analytic and live.
#pragma once

namespace possim {

// Idempotent.
void register_builtin_engines();

}  // namespace possim
