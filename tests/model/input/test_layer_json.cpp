// Layer JSON: zoo models survive a round trip unchanged, and every kind of bad input is
// rejected with one line naming the file and the field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

#include "model/input/error.hpp"
#include "model/input/layer_json.hpp"
#include "model/workload/zoo.hpp"

using namespace possim;
using nlohmann::json;

namespace {
void require_same(const Layer& a, const Layer& b) {
  INFO(a.name);
  CHECK(a.name == b.name);
  CHECK(a.kind == b.kind);
  CHECK(a.in == b.in);
  CHECK(a.out == b.out);
  CHECK(a.weight_params == b.weight_params);
  CHECK(a.bias_params == b.bias_params);
  CHECK(a.fwd_macs == b.fwd_macs);
  CHECK(a.fwd_flops == b.fwd_flops);
  CHECK(a.bwd_flops == b.bwd_flops);
  CHECK(a.fc_m == b.fc_m);
  CHECK(a.fc_n == b.fc_n);
  CHECK(a.kernel_h == b.kernel_h);
  CHECK(a.kernel_w == b.kernel_w);
  CHECK(a.stride == b.stride);
  CHECK(a.pad_h == b.pad_h);
  CHECK(a.pad_w == b.pad_w);
  CHECK(a.groups == b.groups);
  CHECK(a.average_pool == b.average_pool);
}

// The message of the InputError that parsing `j` throws, or "" when it parses.
std::string error_of(const json& j) {
  try {
    network_from_json(j, "bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// cifar10_quick's JSON: layers[0] conv1, [1] pool1, [9] ip1 (fc), [10] ip2 (fc).
json small() { return network_to_json(make_zoo_network("cifar10_quick")); }

// A scratch directory, removed at the end of the test.
struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("possim_layer_json_" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
  }
};

std::string load_error(const std::string& ref, const std::string& base) {
  try {
    load_network(ref, base);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("layer_json round trip of every zoo model is exact", "[layer_json]") {
  for (const auto& name : zoo_names()) {
    const Network net = make_zoo_network(name);
    const json j = network_to_json(net);
    CHECK(j.at("format") == "possim-network-1");
    // Through text, as a user's file would be.
    const Network back = network_from_json(json::parse(j.dump(1)), name + ".json");
    CHECK(back.name == net.name);
    CHECK(back.description == net.description);
    CHECK(back.input == net.input);
    REQUIRE(back.layers.size() == net.layers.size());
    for (std::size_t i = 0; i < net.layers.size(); ++i) require_same(back.layers[i], net.layers[i]);
  }
}

TEST_CASE("layer_json writes fc and geometry fields only where they belong", "[layer_json]") {
  const json j = small();
  const json& conv1 = j["layers"][0];
  CHECK(conv1.at("kind") == "conv");
  CHECK(conv1.at("kernel") == json::array({5, 5}));
  CHECK(conv1.at("pad") == json::array({2, 2}));
  CHECK(conv1.at("stride") == 1);
  CHECK(conv1.at("groups") == 1);
  CHECK_FALSE(conv1.contains("fc_m"));
  const json& ip1 = j["layers"][9];
  CHECK(ip1.at("name") == "ip1");
  CHECK(ip1.at("fc_m") == 64);
  CHECK(ip1.at("fc_n") == 1024);
  CHECK(ip1.at("in") == json::array({64, 4, 4}));
  CHECK_FALSE(ip1.contains("kernel"));
}

TEST_CASE("layer_json rejects malformed networks naming the field", "[layer_json]") {
  struct Case {
    const char* what;
    const char* field;  // must appear in the message
    std::function<void(json&)> mutate;
  };
  const Case cases[] = {
      {"not an object", "bad.json", [](json& j) { j = json::array(); }},
      {"unknown top-level field", "layer", [](json& j) { j["layer"] = json::array(); }},
      {"missing format", "format", [](json& j) { j.erase("format"); }},
      {"wrong format", "format", [](json& j) { j["format"] = "possim-network-2"; }},
      {"missing name", "name", [](json& j) { j.erase("name"); }},
      {"input not a shape", "input", [](json& j) { j["input"] = {3, 32}; }},
      {"zero input channels", "input[0]", [](json& j) { j["input"][0] = 0; }},
      {"layers not an array", "layers", [](json& j) { j["layers"] = "conv1"; }},
      {"no layers", "layers", [](json& j) { j["layers"] = json::array(); }},
      {"layer not an object", "layers[2]", [](json& j) { j["layers"][2] = 7; }},
      {"typo in a layer field", "layers[0].kernal",
       [](json& j) { j["layers"][0]["kernal"] = {5, 5}; }},
      {"fc field on a conv", "layers[0].fc_m", [](json& j) { j["layers"][0]["fc_m"] = 3; }},
      {"geometry on an fc", "layers[9].kernel",
       [](json& j) { j["layers"][9]["kernel"] = {1, 1}; }},
      {"unknown kind", "layers[3].kind", [](json& j) { j["layers"][3]["kind"] = "convolution"; }},
      {"kind not a string", "layers[3].kind", [](json& j) { j["layers"][3]["kind"] = 1; }},
      {"empty name", "layers[1].name", [](json& j) { j["layers"][1]["name"] = ""; }},
      {"duplicate name", "layers[2].name", [](json& j) { j["layers"][2]["name"] = "conv1"; }},
      {"missing out", "layers[4].out", [](json& j) { j["layers"][4].erase("out"); }},
      {"negative dimension", "layers[4].in[2]", [](json& j) { j["layers"][4]["in"][2] = -1; }},
      {"negative count", "layers[0].weight_params",
       [](json& j) { j["layers"][0]["weight_params"] = -5; }},
      {"fractional count", "layers[0].bias_params",
       [](json& j) { j["layers"][0]["bias_params"] = 3.5; }},
      {"flops as text", "layers[5].fwd_flops",
       [](json& j) { j["layers"][5]["fwd_flops"] = "a lot"; }},
      {"negative flops", "layers[5].bwd_flops", [](json& j) { j["layers"][5]["bwd_flops"] = -1.0; }},
      {"missing macs", "layers[5].fwd_macs", [](json& j) { j["layers"][5].erase("fwd_macs"); }},
      {"fc without fc_m", "layers[9].fc_m", [](json& j) { j["layers"][9].erase("fc_m"); }},
      {"zero fc_n", "layers[9].fc_n", [](json& j) { j["layers"][9]["fc_n"] = 0; }},
      {"fc weights disagree", "layers[10].weight_params",
       [](json& j) { j["layers"][10]["weight_params"] = 641; }},
      {"missing kernel", "layers[0].kernel", [](json& j) { j["layers"][0].erase("kernel"); }},
      {"zero stride", "layers[1].stride", [](json& j) { j["layers"][1]["stride"] = 0; }},
      {"negative pad", "layers[1].pad[1]", [](json& j) { j["layers"][1]["pad"] = {0, -1}; }},
      {"zero groups", "layers[0].groups", [](json& j) { j["layers"][0]["groups"] = 0; }},
  };
  REQUIRE(error_of(small()).empty());
  for (const auto& c : cases) {
    INFO(c.what);
    json j = small();
    c.mutate(j);
    const std::string msg = error_of(j);
    CHECK_THAT(msg, Catch::Contains("bad.json"));
    CHECK_THAT(msg, Catch::Contains(c.field));
    CHECK(msg.find('\n') == std::string::npos);
  }
  CHECK_THAT(error_of([] {
               json j = small();
               j["layers"][0]["kernal"] = 5;
               return j;
             }()),
             Catch::Contains("expected one of"));
}

TEST_CASE("layer_json optional fields take their defaults", "[layer_json]") {
  json j = small();
  j.erase("description");
  j["layers"][1].erase("stride");
  j["layers"][1].erase("pad");
  j["layers"][1].erase("groups");
  const Network net = network_from_json(j, "ok.json");
  CHECK(net.description.empty());
  CHECK(net.layers[1].stride == 1);
  CHECK(net.layers[1].pad_h == 0);
  CHECK(net.layers[1].groups == 1);
}

TEST_CASE("layer_json load_network resolves zoo names and files", "[layer_json]") {
  TempDir dir;
  const std::string base = dir.path.string();
  CHECK(load_network("resnet50", base).total_params() == 25557032);

  json j = small();
  j["name"] = "my_net";
  dir.write("my_net.json", j.dump());
  CHECK(load_network("my_net.json", base).name == "my_net");
  CHECK(load_network((dir.path / "my_net.json").string(), "/nonexistent").name == "my_net");

  CHECK_THAT(load_error("missing.json", base),
             Catch::Contains((dir.path / "missing.json").string()));

  dir.write("broken.json", "{\"format\": \"possim-network-1\",\n \"name\": }");
  const std::string broken = load_error("broken.json", base);
  CHECK_THAT(broken, Catch::Contains((dir.path / "broken.json").string()));
  CHECK_THAT(broken, Catch::Contains("byte"));
  CHECK(broken.find('\n') == std::string::npos);

  json bad = small();
  bad["layers"][3]["kind"] = "convolution";
  dir.write("bad.json", bad.dump());
  CHECK_THAT(load_error("bad.json", base), Catch::Contains("bad.json: layers[3].kind"));

  const std::string unknown = load_error("resnet-50", base);
  CHECK_THAT(unknown, Catch::Contains("resnet-50"));
  for (const auto& name : zoo_names()) CHECK_THAT(unknown, Catch::Contains(name));
}
