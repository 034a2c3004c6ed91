// Catch's main, after registering possim's engines (engines/builtin_engines.hpp), as the
// CLI does: results files name them and scenarios hold their sections. The tests link the
// SimGrid engine (sim/) and register it in place of the CLI's module loader, so that one
// copy of it runs in this process; the CLI's tests exercise the module.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "engines/builtin_engines.hpp"
#include "sim/simgrid_engine.hpp"

int main(int argc, char** argv) {
  possim::register_builtin_engines();
  possim::sim::register_simgrid_engine();
  return Catch::Session().run(argc, argv);
}
