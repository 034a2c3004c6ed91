// Profiles: the shipped Titan X profile, the three layer-timing rules, and one clear
// InputError per malformed field.
#include <catch2/catch.hpp>

#include "support/fixtures.hpp"
#include <nlohmann/json.hpp>

#include "model/input/error.hpp"
#include "model/input/profile.hpp"
#include "model/workload/zoo.hpp"

using namespace possim;
using possim::test::input_error;
using nlohmann::json;

namespace {

// The smallest valid profile: the required rates and the two GEMM efficiencies.
json base_profile() {
  return json{{"format", "possim-profile-1"}, {"name", "test"},
              {"peak_flops_per_s", 1e12},     {"kind_efficiency", {{"conv", 0.5}, {"fc", 0.25}}},
              {"pcie_bytes_per_s", 1e10},     {"d2d_bytes_per_s", 1e10},
              {"tcp_goodput", 0.9},           {"server_apply_bytes_per_s", 1e9},
              {"rebuild_flops_per_s", 1e12},  {"quantize_bytes_per_s", 1e11}};
}

Layer layer(const std::string& name, LayerKind kind, double fwd_flops) {
  Layer l;
  l.name = name;
  l.kind = kind;
  l.fwd_flops = fwd_flops;
  l.bwd_flops = 2 * fwd_flops;
  return l;
}

// conv 1 GFLOP, relu 1 MFLOP, fc 0.1 GFLOP per image forward; backward twice that.
Network tiny() {
  Network n;
  n.name = "tiny";
  n.layers = {layer("c1", LayerKind::conv, 1e9), layer("r1", LayerKind::relu, 1e6),
              layer("f1", LayerKind::fc, 1e8)};
  return n;
}

double iteration_s(const Profile& p, const std::vector<LayerTime>& t) {
  double s = p.per_iteration_s;
  for (const auto& x : t) s += x.forward_s + x.backward_s;
  return s;
}

}  // namespace

TEST_CASE("Shipped titanx_maxwell profile loads with a source for every number", "[profile]") {
  const Profile p = load_profile("titanx_maxwell");
  CHECK(p.name == "titanx_maxwell");
  CHECK(p.path == std::string(POSSIM_SOURCE_DIR) + "/profiles/titanx_maxwell.json");
  CHECK(p.peak_flops_per_s == 6.6e12);
  CHECK(p.kind_efficiency.at(LayerKind::conv) == 0.8);
  CHECK(p.pcie_bytes_per_s == 12e9);
  CHECK(p.throughput.size() == 6);  // Caffe and TensorFlow points
  for (const char* field :
       {"peak_flops_per_s", "kind_efficiency", "throughput", "pcie_bytes_per_s", "pcie_latency_s",
        "d2d_bytes_per_s", "tcp_goodput", "per_message_s", "server_apply_bytes_per_s",
        "rebuild_flops_per_s", "quantize_bytes_per_s", "per_iteration_s", "server_per_peer_s",
        "runtime_copy_bytes_per_s", "client_pass_bytes_per_s", "server_update_bytes_per_s",
        "stacks"}) {
    INFO(field);
    CHECK(p.sources.count(field) == 1);
  }
  // Every parameter a stack sets says which mechanism it is and where its value came from.
  for (const auto& [name, stack] : p.stacks)
    for (const auto& [param, value] : stack.params) {
      INFO(name << "." << param);
      CHECK(stack.sources.count(param) == 1);
    }
  // The same file by relative path.
  CHECK(load_profile("../profiles/titanx_maxwell.json", POSSIM_TESTS_DIR).name == "titanx_maxwell");
}

TEST_CASE("VGG19 at batch 32 reproduces the measured 35.5 images/s", "[profile]") {
  const Profile p = load_profile("titanx_maxwell");
  const Network vgg = make_zoo_network("vgg19");
  const auto t = p.layer_times(vgg, 32);
  REQUIRE(t.size() == vgg.layers.size());
  CHECK(iteration_s(p, t) == Approx(32 / 35.5).epsilon(1e-9));
  CHECK(p.compute_source(vgg, 32).find("scaled") != std::string::npos);
  // Other batches scale linearly through the same factor (nearest point: batch 32).
  const auto t64 = p.layer_times(vgg, 64);
  CHECK(iteration_s(p, t64) - p.per_iteration_s ==
        Approx(2 * (32 / 35.5 - p.per_iteration_s)).epsilon(1e-9));
  // GoogLeNet's point is at batch 128.
  const Network g = make_zoo_network("googlenet");
  CHECK(iteration_s(p, p.layer_times(g, 128)) == Approx(128 / 257.0).epsilon(1e-9));
}

TEST_CASE("FLOP model alone when the profile has no point for the model", "[profile]") {
  Profile p = parse_profile(base_profile().dump(), "inline.json");
  const auto t = p.layer_times(tiny(), 8);
  // conv: 8 x 1e9 / (1e12 x 0.5) = 0.016 s forward, 0.032 s backward.
  CHECK(t[0].forward_s == Approx(0.016));
  CHECK(t[0].backward_s == Approx(0.032));
  // relu has no entry: memory-bound default 0.005: 8 x 1e6 / 5e9 = 1.6e-3 s.
  CHECK(t[1].forward_s == Approx(1.6e-3));
  // fc: 8 x 1e8 / (1e12 x 0.25) = 3.2e-3 s.
  CHECK(t[2].forward_s == Approx(3.2e-3));
  CHECK(p.compute_source(tiny(), 8).find("alone") != std::string::npos);
  // The shipped profile has no AlexNet point either.
  const Profile tx = load_profile("titanx_maxwell");
  const Network alex = make_zoo_network("alexnet");
  const auto ta = tx.layer_times(alex, 128);
  const int fc6 = alex.find("fc6");
  REQUIRE(fc6 >= 0);
  CHECK(ta[std::size_t(fc6)].forward_s ==
        Approx(128 * alex.layers[std::size_t(fc6)].fwd_flops / (6.6e12 * 0.4)));
}

TEST_CASE("Throughput scaling uses the nearest batch and includes per_iteration_s", "[profile]") {
  json j = base_profile();
  j["per_iteration_s"] = 0.01;
  j["throughput"] = {{{"model", "tiny"}, {"batch", 16}, {"images_per_s", 400}, {"source", "a"}},
                     {{"model", "tiny"}, {"batch", 64}, {"images_per_s", 500}, {"source", "b"}}};
  const Profile p = parse_profile(j.dump(), "inline.json");
  // Batch 16 is nearest to 20: the batch-16 iteration takes 16 / 400 = 0.04 s exactly.
  CHECK(iteration_s(p, p.layer_times(tiny(), 16)) == Approx(0.04).epsilon(1e-12));
  // Batch 50 is nearest to 64: 64 / 500 = 0.128 s.
  CHECK(iteration_s(p, p.layer_times(tiny(), 64)) == Approx(0.128).epsilon(1e-12));
  // At batch 50 the layers take 50/64 of the batch-64 layer time: (0.128 - 0.01) x 50/64.
  CHECK(iteration_s(p, p.layer_times(tiny(), 50)) == Approx(0.01 + 0.118 * 50 / 64).epsilon(1e-12));
  CHECK(p.compute_source(tiny(), 50).find("(b)") != std::string::npos);
}

TEST_CASE("Measured per-layer timings win, and must cover every layer", "[profile]") {
  json j = base_profile();
  j["throughput"] = {{{"model", "tiny"}, {"batch", 4}, {"images_per_s", 1}, {"source", "x"}}};
  j["measured"] = {{{"model", "tiny"},
                    {"batch", 4},
                    {"source", "bench run 7"},
                    {"layers",
                     {{{"layer", "f1"}, {"forward_s", 0.3}, {"backward_s", 0.6}},
                      {{"layer", "c1"}, {"forward_s", 0.1}, {"backward_s", 0.2}},
                      {{"layer", "r1"}, {"forward_s", 0.0}, {"backward_s", 0.01}}}}}};
  const Profile p = parse_profile(j.dump(), "inline.json");
  const auto t = p.layer_times(tiny(), 4);
  CHECK(t[0].forward_s == 0.1);
  CHECK(t[1].backward_s == 0.01);
  CHECK(t[2].backward_s == 0.6);
  CHECK(p.compute_source(tiny(), 4).find("bench run 7") != std::string::npos);
  // Another batch falls back to the FLOP model (scaled by the batch-4 point).
  CHECK(p.compute_source(tiny(), 8).find("scaled") != std::string::npos);

  j["measured"][0]["layers"].erase(1);  // drop c1
  const Profile q = parse_profile(j.dump(), "inline.json");
  CHECK_THAT(input_error([&] { q.layer_times(tiny(), 4); }),
             Catch::Matchers::Contains("measured[0].layers") && Catch::Matchers::Contains("'c1'"));
}

TEST_CASE("Malformed profiles throw one InputError naming the field", "[profile]") {
  struct Case {
    const char* what;
    std::string text;
    const char* expect;  // substring of the message after "bad.json: "
  };
  const auto with = [](const std::string& pointer, const json& value) {
    json j = base_profile();
    j[json::json_pointer(pointer)] = value;
    return j.dump();
  };
  const auto without = [](const std::string& key) {
    json j = base_profile();
    j.erase(key);
    return j.dump();
  };
  json dup = base_profile();
  dup["throughput"] = {{{"model", "m"}, {"batch", 8}, {"images_per_s", 1}, {"source", "s"}},
                       {{"model", "m"}, {"batch", 8}, {"images_per_s", 2}, {"source", "s"}}};
  json dup_layer = base_profile();
  dup_layer["measured"] = {{{"model", "m"},
                            {"batch", 8},
                            {"source", "s"},
                            {"layers",
                             {{{"layer", "a"}, {"forward_s", 1}, {"backward_s", 1}},
                              {{"layer", "a"}, {"forward_s", 1}, {"backward_s", 1}}}}}};
  const std::vector<Case> cases = {
      {"malformed", "{\"format\": \"possim-profile-1\",\n \"name\": }", "malformed JSON"},
      {"not an object", "[1, 2]", "expected a JSON object"},
      {"goodput too high", with("/tcp_goodput", 1.7),
       "tcp_goodput: 1.7 is out of range (expected a fraction in (0, 1])"},
      {"goodput zero", with("/tcp_goodput", 0), "tcp_goodput: 0 is out of range"},
      {"unknown field", with("/tcp_goodputt", 0.9),
       "tcp_goodputt: unknown field; did you mean 'tcp_goodput'?"},
      {"missing format", without("format"), "format: missing"},
      {"wrong format", with("/format", "possim-profile-2"), "format: \"possim-profile-2\""},
      {"missing rate", without("pcie_bytes_per_s"), "pcie_bytes_per_s: missing"},
      {"negative rate", with("/server_apply_bytes_per_s", -1),
       "server_apply_bytes_per_s: -1 is out of range"},
      {"rate as text", with("/peak_flops_per_s", "6.6 TFLOP/s"),
       "peak_flops_per_s: \"6.6 TFLOP/s\" (string) is not a number"},
      {"negative latency", with("/pcie_latency_s", -1e-6), "pcie_latency_s:"},
      {"efficiency zero", with("/kind_efficiency/conv", 0),
       "kind_efficiency.conv: 0 is out of range"},
      {"efficiency above one", with("/kind_efficiency/relu", 1.5), "kind_efficiency.relu: 1.5"},
      {"unknown kind", with("/kind_efficiency/convv", 0.5),
       "kind_efficiency.convv: unknown layer kind"},
      {"no efficiencies", without("kind_efficiency"), "kind_efficiency: missing"},
      {"batch zero",
       with("/throughput",
            json::array({{{"model", "m"}, {"batch", 0}, {"images_per_s", 1}, {"source", "s"}}})),
       "throughput[0].batch: 0 is out of range"},
      {"batch fractional",
       with("/throughput",
            json::array({{{"model", "m"}, {"batch", 8.5}, {"images_per_s", 1}, {"source", "s"}}})),
       "throughput[0].batch: 8.5 (number) is not an integer"},
      {"no source",
       with("/throughput", json::array({{{"model", "m"}, {"batch", 8}, {"images_per_s", 1}}})),
       "throughput[0].source: missing"},
      {"duplicate point", dup.dump(), "throughput[1]: second point for m at batch 8"},
      {"negative layer time",
       with("/measured",
            json::array({{{"model", "m"},
                          {"batch", 8},
                          {"source", "s"},
                          {"layers", {{{"layer", "a"}, {"forward_s", -1}, {"backward_s", 1}}}}}})),
       "measured[0].layers[0].forward_s: -1 is out of range"},
      {"duplicate layer", dup_layer.dump(), "measured[0].layers[1].layer: layer 'a' appears twice"},
      {"unknown source key", with("/sources/tcp_godput", "guess"),
       "sources.tcp_godput: unknown field; did you mean 'tcp_goodput'?"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    CHECK_THAT(input_error([&] { parse_profile(c.text, "bad.json"); }),
               Catch::Matchers::StartsWith("bad.json: ") && Catch::Matchers::Contains(c.expect));
  }
  // The per_iteration_s case names the point that leaves no time for the layers.
  json slow = base_profile();
  slow["per_iteration_s"] = 0.5;
  slow["throughput"] = {{{"model", "m"}, {"batch", 8}, {"images_per_s", 16}, {"source", "s"}}};
  CHECK_THAT(input_error([&] { parse_profile(slow.dump(), "bad.json"); }),
             Catch::Matchers::Contains("throughput[0].images_per_s"));
  // kind_efficiency must give conv and fc.
  json no_fc = base_profile();
  no_fc["kind_efficiency"].erase("fc");
  CHECK_THAT(input_error([&] { parse_profile(no_fc.dump(), "bad.json"); }),
             Catch::Matchers::Contains("kind_efficiency.fc: missing"));
}

TEST_CASE("Missing profiles name the path they looked for", "[profile]") {
  CHECK_THAT(input_error([&] { load_profile("no_such_gpu"); }),
             Catch::Matchers::Contains("profiles/no_such_gpu.json") &&
                 Catch::Matchers::Contains("titanx_maxwell"));
  CHECK_THAT(input_error([&] { load_profile("nowhere/x.json", "/tmp"); }),
             Catch::Matchers::Contains("/tmp/nowhere/x.json"));
}
