// results.json's results written as text (append_result_json, model/run/json_members.hpp)
// must be byte for byte what the DOM (result_to_json) dumps, for results of every engine
// and with every optional member; a writer that gives members out of dump's order fails.
#include <string>

#include <catch2/catch.hpp>

#include "model/analytic/analytic_engine.hpp"
#include "model/run/json_members.hpp"
#include "model/run/result_io.hpp"
#include "sim/simgrid_engine.hpp"
#include "support/fixtures.hpp"

using namespace possim;
using namespace possim::test;

namespace {

// As a top-level array's element (depth 2), and as a document of its own (depth 0).
void same_text(const Result& r) {
  std::string text;
  append_result_json(text, r, 0);
  CHECK(text == result_to_json(r).dump(2));
  const nlohmann::json doc = {{"results", {result_to_json(r)}}};
  std::string nested = "{\n  \"results\": [\n    ";
  append_result_json(nested, r, 2);
  nested += "\n  ]\n}";
  CHECK(nested == doc.dump(2));
}

}  // namespace

TEST_CASE("results as text: the DOM's dump, byte for byte, for every engine and optional member", "[result_io]") {
  const Network net = small_cnn();
  const Profile prof = flat_profile();
  for (const std::string s : {"ps", "poseidon", "allreduce", "single"}) {
    const SyncPlan plan = make_plan(s, request(net, prof, s == "single" ? 1 : 4, 10));
    INFO(s);
    Result a = AnalyticEngine().run(plan, RunOptions{});
    REQUIRE_FALSE(a.layers.empty());
    same_text(a);
    a.interval = Result::Interval{0.1, 0.2, 30, 40, 1.5, 2.5};
    a.failure = "a \"quoted\" failure\nover two lines, caf\xc3\xa9";
    a.training_loss = {2.5, 2.25, 1e-300};
    a.replicas_agree = false;
    same_text(a);
    const Result g = sim::SimGridEngine().run(plan, RunOptions{});
    REQUIRE_FALSE(g.links.empty());
    same_text(g);
  }
  Result empty;
  same_text(empty);
}

TEST_CASE("results as text: a member out of dump's order is refused", "[result_io]") {
  std::string out;
  TextObject o(out, 0);
  o.value("b", 1);
  CHECK_THROWS_AS(o.value("a", 2), std::logic_error);
  CHECK_THROWS_AS(o.value("b", 3), std::logic_error);
}
