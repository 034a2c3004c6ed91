// Catch's main, after registering possim's engines (engines/builtin_engines.hpp), as the
// CLI does: results files name them and scenarios hold their sections.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "engines/builtin_engines.hpp"

int main(int argc, char** argv) {
  possim::register_builtin_engines();
  return Catch::Session().run(argc, argv);
}
