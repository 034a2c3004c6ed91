// The strategies' vocabulary (model/input/strategy_names.cpp, what inputs accept) and the
// registry's factories (model/strategies/registry.cpp) name the same strategies.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "model/input/strategy_names.hpp"
#include "model/strategies/registry.hpp"

using namespace possim;

TEST_CASE("every strategy name makes the strategy of that name, and the registry makes no other", "[plan]") {
  for (const std::string& name : strategy_names()) {
    INFO(name);
    const auto strategy = make_strategy(name);
    REQUIRE(strategy);
    CHECK(std::string(strategy->name()) == name);
  }
  for (const std::string& name : strategy_factories()) {
    INFO(name);
    CHECK(is_strategy(name));
  }
  CHECK(strategy_factories() == strategy_names());
  CHECK(is_reference(strategy_names().front()));
}
