// InstanceGraph (model/plan/instance_graph.hpp): the instances an engine that runs every
// one of them indexes, 32 bits each in the run's timings (InstanceRef).
#include <catch2/catch.hpp>

#include <limits>

#include "model/plan/instance_graph.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;

TEST_CASE("InstanceGraph refuses a plan with more instances than an InstanceRef holds", "[plan]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  SyncPlan plan = make_plan("poseidon", request(net, prof, 64, 10, 32, 3));
  const std::size_t per_iteration = InstanceGraph(plan).size() / 3;
  REQUIRE(per_iteration > 64);
  const std::size_t limit = std::size_t(std::numeric_limits<InstanceRef>::max());
  // One iteration past what fits is refused by name, before anything per instance is
  // allocated; a few iterations build.
  plan.iterations = int(limit / per_iteration) + 1;
  const std::string why = input_error([&] { InstanceGraph g(plan); });
  CHECK(why.find("task instances") != std::string::npos);
  CHECK(why.find(std::to_string(std::size_t(plan.iterations) * per_iteration)) != std::string::npos);
  CHECK(why.find("fewer iterations") != std::string::npos);
  plan.iterations = 3;
  CHECK(InstanceGraph(plan).size() == 3 * per_iteration);  // the same plan, refused only for its size
}
