// calibrate fit --set: a parameter held at a value carried from elsewhere while others are
// fitted. The value lands in the profile as a fit's would (relative ones multiply the base),
// its source says where it came from, and what cannot be set is refused on one line.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "calibrate/set_parameters.hpp"
#include "model/input/error.hpp"
#include "model/input/profile.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using namespace possim::calibrate;
namespace fs = std::filesystem;

namespace {

// A derived profile no fit has touched: its peaks and kind efficiencies are the derivation's.
Profile h200() { return load_profile(std::string(POSSIM_SOURCE_DIR) + "/profiles/h200.json"); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("A parameter held by --set keeps its value and says where it came from", "[calibrate][set]") {
  const Profile base = h200();
  const double tf32 = base.peak_flops_by_math.at("tf32"), fp16 = base.peak_flops_by_math.at("fp16");
  const double bn = base.efficiency_of(LayerKind::bn), conv = base.efficiency_of(LayerKind::conv);

  const Profile p = set_parameters(base,
                                   {parse_set_parameter(base, "tf32_scale=0.5"),
                                    parse_set_parameter(base, "memory_bound_scale=2"),
                                    parse_set_parameter(base, "per_message_s=1.5e-5")},
                                   "carried from a test");
  // Relative parameters multiply the base, as a fit's values do; the others are the value.
  CHECK(p.peak_flops_by_math.at("tf32") == Approx(0.5 * tf32));
  CHECK(p.peak_flops_by_math.at("fp16") == Approx(fp16));
  CHECK(p.efficiency_of(LayerKind::bn) == Approx(2 * bn));
  CHECK(p.efficiency_of(LayerKind::conv) == Approx(conv));
  CHECK(p.per_message_s == Approx(1.5e-5));
  // Each source names the value, that it was set, not fitted, and the reason given.
  CHECK(contains(p.sources.at("peak_flops_per_s_by_precision"),
                 "the tf32 peak further x tf32_scale 0.5 (set, not fitted: carried from a test)"));
  CHECK(contains(p.sources.at("kind_efficiency"), "x memory_bound_scale 2 (set, not fitted: carried from a test)"));
  CHECK(contains(p.sources.at("per_message_s"), "per_message_s 1.5e-05 (set, not fitted: carried from a test)"));
  // The derivation's account of the peaks and efficiencies is kept before it.
  CHECK(contains(p.sources.at("kind_efficiency"), "possim profile derive"));
  // Nothing set: the base itself.
  CHECK(set_parameters(base, {}, "").peak_flops_by_math.at("tf32") == tf32);
}

TEST_CASE("What calibrate fit --set cannot hold is refused: one InputError naming the option", "[calibrate][set]") {
  const Profile base = h200();
  auto fails = [&](const std::string& text, const std::string& part) {
    INFO(text);
    try {
      (void)parse_set_parameter(base, text);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(contains(e.what(), "--set"));
      CHECK(contains(e.what(), part));
    }
  };
  fails("tf32_scale", "has no '='");
  fails("tf32_scale=2", "physical range");    // a factor on a peak is at most 1
  fails("tf32_scale=-0.5", "physical range");
  fails("tf32_scale=abc", "physical range");
  fails("warp_speed=1", "warp_speed");         // not a parameter
  const SetParameter half = parse_set_parameter(base, "tf32_scale=0.5");
  CHECK_THROWS_WITH(set_parameters(base, {half}, ""), Catch::Contains("--set-why"));
  CHECK_THROWS_WITH(set_parameters(base, {half, half}, "x"), Catch::Contains("given twice"));
}

TEST_CASE("calibrate fit --set: the set value is kept and the free one fitted around it", "[calibrate][set][cli]") {
  const auto dir = test::scratch("set", "fit");
  const std::string src = POSSIM_SOURCE_DIR;
  const std::string points = "'" + src + "/traces/measured/published/resnet50_h100.csv'";
  const std::string base = "--profile '" + src + "/profiles/h200.json' --engine analytic -q";
  const test::Output o = test::run_possim("calibrate fit " + points + " " + base +
                                              " --out set.json --free memory_bound_scale --set tf32_scale=0.25 "
                                              "--set-why 'a test'",
                                          dir);
  INFO(o.out << o.err);
  REQUIRE(o.status == 0);
  const Profile fitted = load_profile((dir / "set.json").string());
  CHECK(fitted.peak_flops_by_math.at("tf32") == Approx(0.25 * h200().peak_flops_by_math.at("tf32")));
  CHECK(contains(fitted.sources.at("peak_flops_per_s_by_precision"), "(set, not fitted: a test)"));
  CHECK(contains(fitted.sources.at("kind_efficiency"), "memory_bound_scale"));
  CHECK(contains(fitted.sources.at("kind_efficiency"), "fitted by possim calibrate fit"));
  // The calibration record beside it says what was held, at what, and why.
  const nlohmann::json record = nlohmann::json::parse(test::slurp(dir / "set.calibration.json"));
  REQUIRE(record.contains("held"));
  CHECK(record["held"].size() == 1);
  CHECK(record["held"][0]["parameter"] == "tf32_scale");
  CHECK(record["held"][0]["value"].get<double>() == 0.25);
  CHECK(record["held"][0]["why"] == "a test");

  // Set and fitted at once, a reason without a value, a value without a reason: exit 2, one
  // line, nothing written.
  for (const std::string bad : {" --free memory_bound_scale,tf32_scale --set tf32_scale=0.5 --set-why x",
                                " --free memory_bound_scale,tensor_core_scale --set tf32_scale=0.5 --set-why x",
                                " --free memory_bound_scale --set-why x",
                                " --free memory_bound_scale --set tf32_scale=0.5"}) {
    const test::Output b = test::run_possim("calibrate fit " + points + " " + base + " --out bad.json" + bad, dir);
    INFO(bad << "\n" << b.err);
    CHECK(b.status == 2);
    CHECK(test::count_lines(b.err.substr(b.err.find("possim: --"))) == 1);
    CHECK_FALSE(fs::exists(dir / "bad.json"));
  }
}
