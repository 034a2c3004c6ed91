// Scenarios: the shipped vgg19_10gbe parses with the right values, relative references
// resolve against the scenario's folder, and every file in tests/scenarios_bad/ fails with
// one InputError naming its file and the offending field.
#include <catch2/catch.hpp>

#include "live/live_settings.hpp"
#include "support/fixtures.hpp"
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "model/input/error.hpp"
#include "model/input/layer_json.hpp"
#include "model/input/scenario.hpp"
#include "model/workload/zoo.hpp"

using namespace possim;
using possim::test::input_error;
namespace fs = std::filesystem;

namespace {

const std::string kBad = std::string(POSSIM_TESTS_DIR) + "/scenarios_bad/";

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST_CASE("Shipped vgg19_10gbe scenario", "[scenario]") {
  const Scenario s = load_scenario(std::string(POSSIM_SOURCE_DIR) + "/scenarios/vgg19_10gbe.json");
  CHECK(s.name == "vgg19_10gbe");
  CHECK(!s.description.empty());
  CHECK(s.model_ref == "vgg19");
  CHECK(s.network.name == "vgg19");
  CHECK(s.network.total_params() == 143667240);
  CHECK(s.batch_per_gpu == 32);
  CHECK(s.nodes == std::vector<int>{1, 2, 4, 8, 16, 32});
  CHECK(s.nic_gbps == std::vector<double>{10});
  CHECK(s.gpus_per_node == 1);
  CHECK(s.latency_s == 50e-6);
  CHECK(s.server_shards == 0);  // per_node
  CHECK(s.placement == ServerPlacement::colocated);
  CHECK(s.strategies == std::vector<std::string>{"ps", "wfbp", "poseidon", "allreduce"});
  CHECK(s.options.kv_pair_bytes == 2097152);
  CHECK(s.options.consistency == Consistency::bsp);
  CHECK(s.options.staleness == 0);
  CHECK(s.options.best_scheme == BestSchemeRule::atc17);
  CHECK(s.options.stragglers.kind == "none");
  CHECK(s.profile_ref == "titanx_maxwell");
  CHECK(s.profile.name == "titanx_maxwell");
  CHECK(s.iterations == 5);
  CHECK(s.seed == 1);

  const Cluster c = s.cluster(16, 10);
  CHECK(c.nodes == 16);
  CHECK(c.server_shards == 16);  // per_node follows the sweep point
  CHECK(c.nic_gbps == 10);
  CHECK(c.latency_s == 50e-6);
  CHECK(c.nic_bytes_per_s() == 1.25e9);
}

TEST_CASE("Defaults and the remaining enum values", "[scenario]") {
  const std::string text = R"({
    "model": "googlenet", "batch_per_gpu": 128,
    "cluster": { "nodes": 8, "nic_gbps": 40, "gpus_per_node": 2,
                 "servers": { "shards": 4, "placement": "dedicated" } },
    "strategies": ["poseidon", "adam"],
    "strategy_options": { "consistency": "ssp", "staleness": 2, "best_scheme": "sacp16",
                          "stragglers": { "kind": "fixed", "slowdown": [1, 1, 1, 1, 1, 1, 1, 1.5],
                                          "drop_after": 2 } },
    "seed": 18446744073709551615 })";
  const Scenario s = parse_scenario(text, "dir/inline_case.json", "dir");
  CHECK(s.name == "inline_case");
  CHECK(s.nodes == std::vector<int>{8});
  CHECK(s.nic_gbps == std::vector<double>{40});
  CHECK(s.latency_s == 50e-6);
  CHECK(s.iterations == 5);
  CHECK(s.seed == 18446744073709551615ULL);
  CHECK(s.profile_ref == "titanx_maxwell");
  CHECK(s.options.kv_pair_bytes == 2.0 * 1024 * 1024);
  CHECK(std::string(to_string(s.options.consistency)) == "ssp");
  CHECK(s.options.staleness == 2);
  CHECK(std::string(to_string(s.options.best_scheme)) == "sacp16");
  CHECK(s.options.stragglers.slowdown.size() == 8);
  CHECK(s.options.stragglers.drop_after == 2);
  const Cluster c = s.cluster(8, 40);
  CHECK(c.server_shards == 4);
  CHECK(c.placement == ServerPlacement::dedicated);
  CHECK(c.total_nodes() == 12);
  CHECK(c.total_gpus() == 16);
  CHECK(std::string(to_string(Consistency::bsp)) == "bsp");
  CHECK(std::string(to_string(BestSchemeRule::atc17)) == "atc17");
}

TEST_CASE("live.time_dilation: a factor, auto, or a clear error", "[scenario]") {
  const auto with = [](const std::string& value) {
    return parse_scenario(R"({"model": "googlenet", "batch_per_gpu": 32, "cluster": {"nodes": 2, "nic_gbps": 1},
                              "strategies": ["ps"], "live": {"time_dilation": )" + value + "}}",
                          "dir/dilation.json", "dir");
  };
  CHECK(live::live_settings(with("4")).time_dilation == 4);
  CHECK(live::live_settings(with("\"auto\"")).time_dilation == 0);  // nodes / cores, when the run starts
  CHECK(live::live_settings(parse_scenario(R"({"model": "googlenet", "batch_per_gpu": 32, "cluster": {"nodes": 2, "nic_gbps": 1},
                           "strategies": ["ps"]})", "dir/d.json", "dir")).time_dilation == 1);
  CHECK_THROWS_WITH(with("0.5"), Catch::Matchers::Contains("live.time_dilation: 0.5 is out of range"));
  CHECK_THROWS_WITH(with("\"fast\""), Catch::Matchers::Contains("live.time_dilation"));
}

TEST_CASE("Model and profile paths resolve against the scenario's folder", "[scenario]") {
  const fs::path dir = fs::temp_directory_path() / "possim_test_scenario";
  fs::remove_all(dir);
  fs::create_directories(dir / "models");
  fs::create_directories(dir / "profiles");
  Network cifar = make_zoo_network("cifar10_quick");
  cifar.name = "my_cifar";
  write(dir / "models" / "my_cifar.json", network_to_json(cifar).dump(2));
  fs::copy_file(std::string(POSSIM_SOURCE_DIR) + "/profiles/titanx_maxwell.json",
                dir / "profiles" / "mine.json");
  write(dir / "s.json", R"({ "model": "models/my_cifar.json", "batch_per_gpu": 100,
    "cluster": { "nodes": [1, 2], "nic_gbps": [1, 10] }, "strategies": ["ps"],
    "profile": "profiles/mine.json" })");
  const Scenario s = load_scenario((dir / "s.json").string());
  CHECK(s.network.name == "my_cifar");
  CHECK(s.network.total_params() == cifar.total_params());
  CHECK(s.profile.name == "titanx_maxwell");
  CHECK(s.profile.path == (dir / "profiles" / "mine.json").string());
  fs::remove_all(dir);
}

TEST_CASE("A list of models is a sweep axis: per_model splits it, one-model commands refuse it", "[scenario]") {
  const fs::path dir = fs::temp_directory_path() / "possim_test_scenario_models";
  fs::remove_all(dir);
  fs::create_directories(dir / "models");
  Network cifar = make_zoo_network("cifar10_quick");
  cifar.name = "my_cifar";
  write(dir / "models" / "my_cifar.json", network_to_json(cifar).dump(2));
  write(dir / "s.json", R"({ "model": ["vgg19", "models/my_cifar.json"], "batch_per_gpu": 16,
    "cluster": { "nodes": [1, 2], "nic_gbps": [10] }, "strategies": ["ps"] })");
  const Scenario s = load_scenario((dir / "s.json").string());
  CHECK(s.model_refs == std::vector<std::string>{"vgg19", "models/my_cifar.json"});
  CHECK(s.model_ref == "vgg19");
  CHECK(s.network.name == "vgg19");
  const std::vector<Scenario> each = per_model(s);
  REQUIRE(each.size() == 2);
  CHECK(each[0].network.name == "vgg19");
  CHECK(each[1].network.name == "my_cifar");  // a layer JSON in a list resolves against the file
  CHECK(each[1].model_ref == "models/my_cifar.json");
  for (const Scenario& one : each) {
    CHECK(one.model_refs.size() == 1);
    CHECK(one.networks.empty());
    CHECK(one.batch_per_gpu == 16);
    CHECK(one.nodes == s.nodes);
    CHECK_NOTHROW(require_one_model(one, "possim explain"));
  }
  const std::string msg = input_error([&] { require_one_model(s, "possim explain"); });
  CHECK_THAT(msg, Catch::Matchers::StartsWith((dir / "s.json").string() + ": model: is a list of 2 models"));
  CHECK_THAT(msg, Catch::Matchers::Contains("one model for possim explain"));
  // One model written as a string: no list, per_model is the scenario itself.
  const Scenario one = parse_scenario(R"({"model": "vgg19", "batch_per_gpu": 32,
    "cluster": {"nodes": [2], "nic_gbps": [10]}, "strategies": ["ps"]})", "one.json", ".");
  CHECK(one.model_refs == std::vector<std::string>{"vgg19"});
  CHECK(one.networks.empty());
  CHECK(per_model(one).size() == 1);
  fs::remove_all(dir);
}

TEST_CASE("Every broken scenario names its file and the offending field", "[scenario]") {
  struct Case {
    const char* file;
    const char* field;            // field path and problem, as they appear in the message
    const char* names = nullptr;  // file the message names, if not the scenario itself
  };
  const std::vector<Case> cases = {
      {"malformed.json", "malformed JSON: parse error at line 5"},
      {"not_an_object.json", "the top level is"},
      {"unknown_field.json", "batch_per_gpus: unknown field; did you mean 'batch_per_gpu'?"},
      {"unknown_nested_field.json", "cluster.servers.shard: unknown field; did you mean 'shards'?"},
      {"unknown_model.json", "model: unknown model 'vgg91'; did you mean 'vgg19'?"},
      {"missing_model_file.json", "model: layer JSON"},
      {"missing_model.json", "model: missing"},
      {"model_list_unknown.json", "model[1]: unknown model 'vgg91'; did you mean 'vgg19'?"},
      {"model_list_duplicate.json", "model[2]: duplicate of model[0]"},
      {"model_list_empty.json", "model: is an empty list"},
      {"zero_nodes.json", "cluster.nodes[0]: 0 is out of range"},
      {"negative_nodes.json", "cluster.nodes: -4 is out of range"},
      {"empty_nodes.json", "cluster.nodes: is an empty list"},
      {"duplicate_nodes.json", "cluster.nodes[2]: duplicate of cluster.nodes[1]"},
      {"negative_batch.json", "batch_per_gpu: -32 is out of range"},
      {"batch_as_string.json", "batch_per_gpu: \"32\" (string) is not an integer"},
      {"fractional_batch.json", "batch_per_gpu: 32.5 (number) is not an integer"},
      {"zero_gpus.json", "cluster.gpus_per_node: 0 is out of range"},
      {"zero_iterations.json", "iterations: 0 is out of range"},
      {"negative_seed.json", "seed: -1 (number) is not a non-negative integer"},
      {"bandwidth_too_high.json",
       "cluster.nic_gbps[2]: 5000 is out of range (expected Gbit/s in [0.1, 3200]"},
      {"bandwidth_too_low.json", "cluster.nic_gbps: 0.05 is out of range"},
      {"bandwidth_as_string.json", "cluster.nic_gbps[0]: \"10GbE\" (string) is not a number"},
      {"duplicate_bandwidth.json", "cluster.nic_gbps[1]: duplicate of cluster.nic_gbps[0]"},
      {"missing_bandwidth.json", "cluster.nic_gbps: missing"},
      {"missing_cluster.json", "cluster: missing"},
      {"negative_latency.json", "cluster.latency_s: -1e-06 is out of range"},
      {"latency_too_high.json", "cluster.latency_s: 2 is out of range"},
      {"zero_shards.json", "cluster.servers.shards: 0 is out of range"},
      {"too_many_shards.json",
       "cluster.servers.shards: 8 colocated shards exceed the 2 nodes of cluster.nodes[0]"},
      {"bad_shards_text.json", "cluster.servers.shards: 'per_gpu' is not allowed"},
      {"bad_placement.json",
       "cluster.servers.placement: 'colocted' is not allowed; did you mean 'colocated'?"},
      {"unknown_strategy.json",
       "strategies[1]: unknown strategy 'poseidn'; did you mean 'poseidon'?"},
      {"duplicate_strategy.json", "strategies[2]: 'ps' is listed twice"},
      {"empty_strategies.json", "strategies: is an empty list"},
      {"strategies_not_list.json", "strategies: \"ps\" (string) is not a list"},
      {"missing_strategies.json", "strategies: missing"},
      {"options_not_object.json", "strategy_options: [] (array) is not an object"},
      {"bad_consistency.json",
       "strategy_options.consistency: 'bps' is not allowed; did you mean 'bsp'?"},
      {"staleness_with_bsp.json", "strategy_options.staleness: 3 with consistency bsp"},
      {"negative_staleness.json", "strategy_options.staleness: -1 is out of range"},
      {"bad_best_scheme.json",
       "strategy_options.best_scheme: 'atc18' is not allowed; did you mean 'atc17'?"},
      {"kv_pair_too_small.json", "strategy_options.kv_pair_bytes: 512 is out of range"},
      {"kv_pair_too_large.json", "strategy_options.kv_pair_bytes: 2147483648 is out of range"},
      {"bad_straggler_kind.json", "strategy_options.stragglers.kind: 'gaussian' is not allowed"},
      {"fixed_stragglers_wrong_length.json",
       "strategy_options.stragglers.slowdown: has 2 factors for 4 workers"},
      {"fixed_stragglers_below_one.json",
       "strategy_options.stragglers.slowdown[1]: 0.5 is out of range"},
      {"lognormal_without_sigma.json", "strategy_options.stragglers.sigma: missing"},
      {"sigma_without_lognormal.json",
       "strategy_options.stragglers.sigma: only applies to kind lognormal"},
      {"drop_after_below_one.json",
       "strategy_options.stragglers.drop_after: 0.5 would drop the median worker"},
      {"missing_profile.json", "profile: no shipped profile 'titanx_pascal'"},
      {"missing_profile_file.json", "profile: profile JSON"},
      {"name_not_string.json", "name: 5 (number) is not a string"},
      // A broken file the scenario refers to is named itself, with its own field.
      {"bad_profile_values.json", "tcp_goodput: 1.7 is out of range",
       "_goodput_too_high.profile.json"},
  };
  std::set<std::string> covered;
  for (const auto& c : cases) {
    INFO(c.file);
    covered.insert(c.file);
    const std::string msg = input_error([&] { load_scenario(kBad + c.file); });
    CHECK_THAT(msg, Catch::Matchers::StartsWith(kBad + (c.names ? c.names : c.file) + ": "));
    CHECK_THAT(msg, Catch::Matchers::Contains(c.field));
    CHECK(msg.find('\n') == std::string::npos);  // one line
  }
  // Every broken file is in the table (helper files the cases refer to start with '_').
  for (const auto& e : fs::directory_iterator(kBad)) {
    const std::string name = e.path().filename().string();
    if (name[0] == '_') continue;
    INFO(name);
    CHECK(covered.count(name) == 1);
  }
}

TEST_CASE("A scenario file that does not exist", "[scenario]") {
  const std::string path = kBad + "no_such_scenario.json";
  CHECK_THAT(input_error([&] { load_scenario(path); }),
             Catch::Matchers::StartsWith(path + ": cannot read"));
}
