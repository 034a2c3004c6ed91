// Capacity planning (model/planning/): the searches against functions whose answers are
// known in closed form, the binding resource, the prices file, and possim plan end to end.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/fixtures.hpp"
#include "model/planning/capacity.hpp"
#include "model/planning/prices.hpp"
#include "support/run_possim.hpp"

using namespace possim;
using namespace possim::test;

namespace {

// A cluster whose iteration is compute plus exposed communication c(n) / bandwidth: the
// efficiency 1 / (1 + c / gbps) reaches e at gbps = c e / (1 - e) exactly.
Result toy(int nodes, double gbps, double comm_gbit) {
  Result r;
  const double compute = 1.0, exposed = comm_gbit * (nodes - 1) / gbps;
  r.iteration_s = compute + exposed;
  r.efficiency = compute / r.iteration_s;
  r.images_per_s = 32.0 * nodes / r.iteration_s;
  r.breakdown[TimeShare::compute] = compute;
  r.breakdown[TimeShare::network] = exposed;
  r.sent_bytes_max = r.received_bytes_max = 1;
  return r;
}

}  // namespace

TEST_CASE("least bandwidth: the grid, then bisection to the closed-form answer", "[planning]") {
  const double c = 0.3;  // Gbit per node per iteration exposed
  int calls = 0;
  const Evaluate eval = [&](int n, double g) {
    ++calls;
    return toy(n, g, c);
  };
  for (int nodes : {2, 8, 16})
    for (double target : {0.5, 0.8, 0.9, 0.95}) {
      calls = 0;
      const Answer a = min_bandwidth(eval, nodes, default_bandwidth_grid(), target);
      const double exact = c * (nodes - 1) * target / (1 - target);
      INFO(nodes << " nodes, target " << target << ": exact " << exact << " Gbit/s, found " << a.gbps);
      if (exact <= 1) {
        CHECK(a.reach == Reach::below_grid);
        CHECK(a.gbps == 1);
        continue;
      }
      REQUIRE(a.reach == Reach::reached);
      CHECK(a.at.efficiency >= target);
      CHECK(a.gbps >= exact * (1 - 1e-9));
      // Within the tolerance, or the efficiency within half a point of the target.
      CHECK((a.gbps <= exact * 1.02 || a.at.efficiency - target <= 0.005));
      CHECK(a.evaluations == calls);
      CHECK(a.binding.resource == "NIC tx");
    }
  const Answer none = min_bandwidth(eval, 64, {1, 10}, 0.99);
  CHECK(none.reach == Reach::unreachable);
  CHECK(none.gbps == 10);
}

TEST_CASE("most nodes at a bandwidth and fewest nodes for a throughput, against closed forms",
          "[planning]") {
  const double c = 0.3, gbps = 10, target = 0.9;
  const Evaluate eval = [&](int n, double g) { return toy(n, g, c); };
  // 1 / (1 + c (n - 1) / g) >= e  <=>  n <= 1 + g (1 - e) / (c e)
  const int most = int(std::floor(1 + gbps * (1 - target) / (c * target)));
  const Answer a = max_nodes(eval, gbps, 256, target);
  CHECK(a.reach == Reach::reached);
  CHECK(a.nodes == most);
  CHECK(a.at.efficiency >= target);
  CHECK(toy(most + 1, gbps, c).efficiency < target);
  CHECK(max_nodes(eval, gbps, 3, target).nodes == std::min(3, most));

  // images/s = 32 n / (1 + c (n - 1) / g) grows with n: find the first n reaching X.
  for (double want : {100.0, 500.0, 700.0}) {
    int first = 1;
    while (toy(first, gbps, c).images_per_s < want && first < 10000) ++first;
    const Answer b = min_nodes_for_throughput(eval, gbps, 1024, want);
    INFO("want " << want << " images/s: first " << first);
    CHECK(b.reach == Reach::reached);
    CHECK(b.nodes == first);
  }
  // The ceiling is 32 g / c ~ 1067 images/s: doubling stops paying before 2000.
  const Answer never = min_nodes_for_throughput(eval, gbps, 1 << 16, 2000);
  CHECK(never.reach == Reach::unreachable);
  CHECK(!never.note.empty());
}

TEST_CASE("the binding resource is the largest share but compute, or compute", "[planning]") {
  Result r;
  r.iteration_s = 1;
  r.breakdown[TimeShare::compute] = 0.985;
  r.breakdown[TimeShare::network] = 0.015;
  CHECK(binding_resource(r).resource == "GPU compute");
  r.breakdown[TimeShare::compute] = 0.7;
  r.breakdown[TimeShare::network] = 0.1;
  r.breakdown[TimeShare::sf_rebuild] = 0.2;
  CHECK(binding_resource(r).resource == "SF rebuild on the GPU");
  CHECK(binding_resource(r).fraction == Approx(0.2));
  r.breakdown[TimeShare::network] = 0.3;
  r.sent_bytes_max = 1;
  r.received_bytes_max = 2;
  CHECK(binding_resource(r).resource == "NIC rx");
  // A hot spot is named only where per-node bytes were measured (SimGrid's link statistics).
  r.received_bytes_mean = r.sent_bytes_mean = 0.5;
  CHECK(binding_resource(r).resource == "NIC rx");
  r.links.push_back(LinkUse{"nic-0 rx", 2, 1, 0.5});
  CHECK(binding_resource(r).resource == "NIC rx (hot spot: busiest node 4.0x the mean)");
  r.breakdown[TimeShare::server_apply] = 0.5;
  CHECK(binding_resource(r).resource == "server shard CPU (apply)");
}

TEST_CASE("prices: the shipped example parses: bad files are one line naming the field", "[planning]") {
  const Prices p = load_prices(std::string(POSSIM_TESTS_DIR) + "/../prices/example.json");
  CHECK(p.gpu_node > 0);
  CHECK(p.nic.size() == p.switch_port.size());
  CHECK(p.cluster(4, 10) == Approx(4 * (p.gpu_node + p.nic.at(10) + p.switch_port.at(10))));
  CHECK(!p.sources.at("nic").empty());
  const auto bad = [](const std::string& text) { return input_error([&] { parse_prices(text, "p.json"); }); };
  CHECK(bad("{\"gpu_node\": 1, \"nic\": {\"10\": 1}}") == "p.json: switch_port: missing (expected a price per node)");
  CHECK(bad("{\"gpu_node\": 1, \"nic\": {\"10\": 1}, \"switch_port\": {\"25\": 1}}").find("switch_port: no price for 10") !=
        std::string::npos);
  CHECK(bad("{\"gpu_node\": -1, \"nic\": {\"10\": 1}, \"switch_port\": {\"10\": 1}}").find("gpu_node: -1 (number) is not a price") !=
        std::string::npos);
  CHECK(bad("{\"gpu_node\": 1, \"nic\": {\"fast\": 1}, \"switch_port\": {\"10\": 1}}").find("nic.fast") != std::string::npos);
  CHECK(bad("{\"gpu_nodes\": 1}").find("unknown field") != std::string::npos);
  CHECK(bad("[").find("malformed JSON") != std::string::npos);
}

TEST_CASE("possim plan answers each question with its binding resource, as a table and JSON",
          "[planning][cli]") {
  const auto dir = scratch("plan", "cli");
  std::ofstream(dir / "s.json") << R"({"name": "p", "model": "vgg19", "batch_per_gpu": 32,
    "cluster": {"nodes": [8], "nic_gbps": [10]}, "strategies": ["poseidon", "wfbp"],
    "iterations": 3, "profile": "titanx_maxwell"})";
  const std::string prices = std::string(POSSIM_TESTS_DIR) + "/../prices/example.json";
  const Output bw = run_possim("plan s.json --engine analytic -q --json bw.json", dir);
  INFO(bw.err);
  REQUIRE(bw.status == 0);
  CHECK(bw.out.find("least NIC bandwidth keeping 90.0% scaling efficiency (grid, then bisection to 2%)") !=
        std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "bw.json"));
  REQUIRE(j.at("answers").size() == 2);
  for (const auto& a : j["answers"]) {
    INFO(a.dump());
    CHECK(a.at("reach") == "reached");
    CHECK(a.at("scaling_efficiency").get<double>() >= 0.9);
    CHECK(!a.at("binding_resource").get<std::string>().empty());
    double sum = 0;
    for (const auto& [k, v] : a.at("time_s").items()) sum += v.get<double>();
    CHECK(sum == Approx(a.at("iteration_s").get<double>()).epsilon(1e-9));
  }
  // Poseidon needs less bandwidth than WFBP for the same efficiency (SFB shrinks FC traffic).
  CHECK(j["answers"][0].at("nic_gbps").get<double>() < j["answers"][1].at("nic_gbps").get<double>());
  // The SimGrid engine answers the same question (one strategy, a short grid).
  const Output sim = run_possim("plan s.json -q --strategies poseidon --grid 1,10,40 --json -", dir);
  REQUIRE(sim.status == 0);
  CHECK(sim.out.find("\"engine\": \"simgrid\"") != std::string::npos);
  const Output nodes = run_possim("plan s.json -q --engine analytic --gbps 10 --max-nodes 64", dir);
  REQUIRE(nodes.status == 0);
  CHECK(nodes.out.find("most nodes keeping 90.0%") != std::string::npos);
  const Output cost =
      run_possim("plan s.json -q --engine analytic --strategies poseidon --prices '" + prices + "' --images-per-s 500", dir);
  REQUIRE(cost.status == 0);
  CHECK(cost.out.find("cheapest per model and strategy") != std::string::npos);
  CHECK(cost.out.find("images/s at " + prices + " prices (") != std::string::npos);
  // VGG19-22K under WFBP at 93%: unreachable on titanx_maxwell's TCP, whose host carries 25.1
  // Gbit/s whatever the NIC: the answer says so.
  const Output host = run_possim(
      "plan s.json -q --engine analytic --models vgg19_22k --strategies wfbp --target-efficiency 0.93", dir);
  REQUIRE(host.status == 0);
  CHECK(host.out.find("not reached") != std::string::npos);
  CHECK(host.out.find("(the host's TCP ceiling, 25.1 Gbit/s: a faster NIC does not help)") != std::string::npos);
  // Bad questions: one line, exit 2.
  CHECK(run_possim("plan s.json --target-efficiency 1.5", dir).status == 2);
  CHECK(run_possim("plan s.json --grid 10,fast", dir).err.find("--grid") != std::string::npos);
  // NIC speeds as a scenario takes them: up to 3,200 Gbit/s per node, not beyond.
  CHECK(run_possim("plan s.json -q --engine analytic --strategies poseidon --gbps 3200 --max-nodes 8", dir).status == 0);
  CHECK(run_possim("plan s.json -q --engine analytic --strategies poseidon --grid 800,1600,3200", dir).status == 0);
  const Output fast = run_possim("plan s.json --engine analytic --gbps 3201", dir);
  CHECK(fast.status == 2);
  CHECK(fast.err.find("Gbit/s in [0.1, 3200]") != std::string::npos);
  CHECK(run_possim("plan s.json --prices none.json --images-per-s 5", dir).status == 2);
  const Output model = run_possim("plan s.json --models nosuchnet", dir);
  CHECK(model.status == 2);
  CHECK(model.err.find("nosuchnet") != std::string::npos);
}
