// The zoo against MODEL_ZOO.md: the numbers are copied from it as literals on purpose,
// so a generator bug cannot agree with itself.
#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "model/workload/zoo.hpp"

using namespace possim;

namespace {
struct Row {
  const char* name;
  std::int64_t params;
  double gmacs;  // forward, per image (Inception-V3: without the aux head)
  Shape input;
  std::int64_t classes;
};
// MODEL_ZOO.md, main table.
const Row kTable[] = {
    {"alexnet", 60965224, 0.724, {3, 227, 227}, 1000},
    {"cifar10_quick", 145578, 0.0124, {3, 32, 32}, 10},
    {"googlenet", 6998552, 1.583, {3, 224, 224}, 1000},
    {"inception_v3", 27161264, 5.713, {3, 299, 299}, 1000},
    {"vgg16", 138357544, 15.470, {3, 224, 224}, 1000},
    {"vgg19", 143667240, 19.632, {3, 224, 224}, 1000},
    {"vgg19_22k", 229052817, 19.717, {3, 224, 224}, 21841},
    {"resnet50", 25557032, 4.089, {3, 224, 224}, 1000},
    {"resnet152", 60192808, 11.514, {3, 224, 224}, 1000},
};

bool is_aux(const Layer& l) { return l.name.rfind("aux", 0) == 0; }

double gmacs_without_aux(const Network& net) {
  double macs = 0;
  for (const auto& l : net.layers)
    if (!is_aux(l)) macs += l.fwd_macs;
  return macs / 1e9;
}

const Layer& layer(const Network& net, const std::string& name) {
  const int i = net.find(name);
  INFO(net.name << " has no layer " << name);
  REQUIRE(i >= 0);
  return net.layers[std::size_t(i)];
}

bool element_wise(LayerKind k) {
  return k == LayerKind::bn || k == LayerKind::relu || k == LayerKind::lrn ||
         k == LayerKind::dropout || k == LayerKind::softmax;
}
}  // namespace

TEST_CASE("zoo lists exactly the MODEL_ZOO.md networks", "[zoo]") {
  std::set<std::string> expected;
  for (const auto& r : kTable) expected.insert(r.name);
  const std::set<std::string> names(zoo_names().begin(), zoo_names().end());
  CHECK(names == expected);
  CHECK(zoo_names().size() == expected.size());
  CHECK(in_zoo("vgg19"));
  CHECK_FALSE(in_zoo("vgg20"));
  CHECK_THROWS_AS(make_zoo_network("vgg20"), std::invalid_argument);
}

TEST_CASE("zoo totals match MODEL_ZOO.md", "[zoo]") {
  for (const auto& r : kTable) {
    const Network net = make_zoo_network(r.name);
    INFO(r.name);
    CHECK(net.name == r.name);
    CHECK_FALSE(net.description.empty());
    CHECK(net.input == r.input);
    // Parameter counts are exact integers in the reference definitions.
    CHECK(net.total_params() == r.params);
    CHECK(std::abs(double(net.total_params()) / double(r.params) - 1) < 0.005);
    CHECK(std::abs(gmacs_without_aux(net) / r.gmacs - 1) < 0.005);
    CHECK(net.total_fwd_flops() >= 2 * net.total_fwd_macs());
    // About 2x forward; less where the first conv (no input gradient) weighs a lot.
    CHECK(net.total_bwd_flops() > 1.7 * net.total_fwd_flops());
    CHECK(net.total_bwd_flops() <= 2 * net.total_fwd_flops());
  }
}

TEST_CASE("zoo variants quoted in MODEL_ZOO.md", "[zoo]") {
  // Inception-V3: 23,834,568 parameters without its aux head.
  const Network v3 = make_zoo_network("inception_v3");
  std::int64_t no_aux = 0;
  int aux_layers = 0;
  for (const auto& l : v3.layers) {
    if (is_aux(l)) ++aux_layers;
    else no_aux += l.params();
  }
  CHECK(no_aux == 23834568);
  CHECK(aux_layers > 0);
  const Layer& aux_fc = layer(v3, "aux.fc");
  CHECK(aux_fc.fc_n == 768);
  CHECK(aux_fc.fc_m == 1000);
  // The aux head reads Mixed_6e (768 x 17 x 17); every conv is bias-free.
  CHECK(layer(v3, "aux.avgpool").in == Shape{768, 17, 17});
  CHECK(layer(v3, "Mixed_7c.concat").out == Shape{2048, 8, 8});
  for (const auto& l : v3.layers)
    if (l.kind == LayerKind::conv) CHECK(l.bias_params == 0);

  // GoogLeNet: aux heads excluded.
  const Network g = make_zoo_network("googlenet");
  for (const auto& l : g.layers) CHECK(l.name.find("loss1") == std::string::npos);
  CHECK(layer(g, "inception_5b/output").out == Shape{1024, 7, 7});
  CHECK(layer(g, "inception_3a/output").out == Shape{256, 28, 28});

  // ResNet v1.5: the stride sits on the 3x3 of the first block of stages 2-4.
  const Network r = make_zoo_network("resnet50");
  CHECK(layer(r, "layer2.0.conv1").stride == 1);
  CHECK(layer(r, "layer2.0.conv2").stride == 2);
  CHECK(layer(r, "layer2.0.conv2").out == Shape{128, 28, 28});
  CHECK(layer(r, "layer2.0.downsample.0").out == Shape{512, 28, 28});
  CHECK(layer(r, "layer4.2.add").out == Shape{2048, 7, 7});
  CHECK(r.find("layer1.1.downsample.0") < 0);

  // CIFAR-10 quick pools round up (Caffe): 32 -> 16 -> 8 -> 4.
  const Network c = make_zoo_network("cifar10_quick");
  CHECK(layer(c, "pool1").out == Shape{32, 16, 16});
  CHECK(layer(c, "pool2").out == Shape{32, 8, 8});
  CHECK(layer(c, "pool3").out == Shape{64, 4, 4});

  CHECK(layer(make_zoo_network("alexnet"), "pool5").out == Shape{256, 6, 6});
  CHECK(layer(make_zoo_network("vgg16"), "pool5").out == Shape{512, 7, 7});
}

TEST_CASE("zoo single-layer checks of MODEL_ZOO.md", "[zoo]") {
  struct Fc {
    const char* model;
    const char* layer;
    std::int64_t in, out, params;
  };
  const Fc fcs[] = {
      {"alexnet", "fc6", 9216, 4096, 37752832},
      {"vgg19", "fc6", 25088, 4096, 102764544},
      {"vgg19", "fc7", 4096, 4096, 16781312},
      {"vgg19_22k", "fc8", 4096, 21841, 89482577},
      {"googlenet", "loss3/classifier", 1024, 1000, 1025000},
      {"cifar10_quick", "ip1", 1024, 64, 65600},
  };
  for (const auto& c : fcs) {
    INFO(c.model << " " << c.layer);
    const Network net = make_zoo_network(c.model);
    const Layer& l = layer(net, c.layer);
    CHECK(l.kind == LayerKind::fc);
    CHECK(l.fc_n == c.in);
    CHECK(l.fc_m == c.out);
    CHECK(l.in.elements() == c.in);
    CHECK(l.out == Shape{c.out, 1, 1});
    CHECK(l.params() == c.params);
  }
  // alexnet conv2: 96x27x27 -> 256, 5x5, pad 2, 2 groups, 307,456 parameters.
  const Network a = make_zoo_network("alexnet");
  const Layer& conv2 = layer(a, "conv2");
  CHECK(conv2.in == Shape{96, 27, 27});
  CHECK(conv2.out == Shape{256, 27, 27});
  CHECK(conv2.kernel_h == 5);
  CHECK(conv2.kernel_w == 5);
  CHECK(conv2.pad_h == 2);
  CHECK(conv2.pad_w == 2);
  CHECK(conv2.groups == 2);
  CHECK(conv2.params() == 307456);
  // MACs by the MODEL_ZOO.md formula: 256 * 27 * 27 * (96 / 2) * 5 * 5.
  CHECK(conv2.fwd_macs == 223948800.0);
}

TEST_CASE("zoo layers are consistent", "[zoo]") {
  for (const auto& r : kTable) {
    const Network net = make_zoo_network(r.name);
    INFO(r.name);
    REQUIRE_FALSE(net.layers.empty());
    std::set<std::string> names;
    std::vector<Shape> produced = {net.input};  // every activation seen so far
    bool first_conv = true;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
      const Layer& l = net.layers[i];
      INFO("layer " << i << " " << l.name);
      CHECK_FALSE(l.name.empty());
      CHECK(names.insert(l.name).second);
      const Shape prev = i == 0 ? net.input : net.layers[i - 1].out;
      if (l.kind == LayerKind::concat) {
        CHECK(l.in == l.out);
        CHECK((l.out.h == prev.h && l.out.w == prev.w));
        CHECK(l.out.c > prev.c);
      } else if (l.kind == LayerKind::add) {
        CHECK(l.in == prev);
        CHECK(l.out == prev);
      } else {
        // A branch layer reads an activation produced earlier (the branch point).
        bool seen = false;
        for (const Shape& s : produced) seen = seen || s == l.in;
        CHECK(seen);
      }
      if (element_wise(l.kind)) CHECK(l.in == l.out);
      if (l.kind == LayerKind::conv || l.kind == LayerKind::pool) {
        CHECK(l.kernel_h > 0);
        CHECK(l.stride > 0);
        CHECK(l.out.h <= (l.in.h + 2 * l.pad_h - l.kernel_h) / l.stride + 2);
        CHECK(l.out.h >= (l.in.h + 2 * l.pad_h - l.kernel_h) / l.stride + 1);
      }
      if (l.kind == LayerKind::conv) {
        CHECK(l.out.h == (l.in.h + 2 * l.pad_h - l.kernel_h) / l.stride + 1);
        CHECK(l.out.w == (l.in.w + 2 * l.pad_w - l.kernel_w) / l.stride + 1);
        CHECK(l.weight_params == l.out.c * (l.in.c / l.groups) * l.kernel_h * l.kernel_w);
      }
      if (l.kind == LayerKind::fc) {
        CHECK(l.fc_m * l.fc_n == l.weight_params);
        CHECK(l.fc_n == l.in.elements());
        CHECK(l.out == Shape{l.fc_m, 1, 1});
        CHECK(l.bias_params == l.fc_m);
      } else {
        CHECK(l.fc_m == 0);
        CHECK(l.fc_n == 0);
      }
      if (l.kind == LayerKind::conv || l.kind == LayerKind::fc) {
        CHECK(l.fwd_macs > 0);
        CHECK(l.fwd_flops == 2 * l.fwd_macs);
        // The first conv computes no gradient for the image.
        const double factor = (l.kind == LayerKind::conv && first_conv) ? 1 : 2;
        CHECK(l.bwd_flops == factor * l.fwd_flops);
        if (l.kind == LayerKind::conv) first_conv = false;
      } else {
        CHECK(l.fwd_macs == 0);
        CHECK(l.fwd_flops > 0);
        CHECK(l.bwd_flops == 2 * l.fwd_flops);
      }
      if (l.kind == LayerKind::bn) {
        CHECK(l.weight_params == l.in.c);
        CHECK(l.bias_params == l.in.c);
      } else if (l.kind != LayerKind::conv && l.kind != LayerKind::fc) {
        CHECK(l.params() == 0);
      }
      produced.push_back(l.out);
    }
    CHECK(net.layers.front().kind == LayerKind::conv);
    // Final output: one score per class.
    CHECK(net.layers.back().kind == LayerKind::softmax);
    CHECK(net.layers.back().out == Shape{r.classes, 1, 1});
  }
}

TEST_CASE("zoo plain chains feed each layer the previous output", "[zoo]") {
  for (const char* name : {"alexnet", "cifar10_quick", "vgg16", "vgg19", "vgg19_22k"}) {
    const Network net = make_zoo_network(name);
    Shape prev = net.input;
    for (const auto& l : net.layers) {
      INFO(name << " " << l.name);
      CHECK(l.in == prev);
      prev = l.out;
    }
  }
}
