// The zoo registry: each name maps to the generator of its architecture family.
#include "model/workload/zoo.hpp"

#include <functional>
#include <stdexcept>

#include "model/workload/zoo/generators.hpp"

namespace possim {

namespace {
struct Entry {
  const char* name;
  std::function<Network()> make;
  int paper_batch_per_gpu;  // POSEIDON.md section 7's table, else the batch its own paper trained at
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> kEntries = {
      {"alexnet", zoo::alexnet, 256},               // Poseidon's AlexNet, batch 256
      {"cifar10_quick", zoo::cifar10_quick, 100},
      {"googlenet", zoo::googlenet, 128},
      {"inception_v3", zoo::inception_v3, 32},
      {"vgg16", [] { return zoo::vgg(16, 1000); }, 64},  // Caffe's K40 figure (POSEIDON.md section 7)
      {"vgg19", [] { return zoo::vgg(19, 1000); }, 32},
      {"vgg19_22k", [] { return zoo::vgg(19, 21841); }, 32},
      {"resnet50", [] { return zoo::resnet(50); }, 32},  // He et al.: 256 over 8 GPUs
      {"resnet152", [] { return zoo::resnet(152); }, 32},
  };
  return kEntries;
}
}  // namespace

const std::vector<std::string>& zoo_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const auto& e : entries()) names.emplace_back(e.name);
    return names;
  }();
  return kNames;
}

bool in_zoo(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return true;
  return false;
}

int paper_batch_per_gpu(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return e.paper_batch_per_gpu;
  return 0;
}

Network make_zoo_network(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return e.make();
  std::string list;
  for (const auto& n : zoo_names()) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown zoo model '" + name + "' (expected one of " + list + ")");
}

}  // namespace possim
