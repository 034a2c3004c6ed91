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
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> kEntries = {
      {"alexnet", zoo::alexnet},
      {"cifar10_quick", zoo::cifar10_quick},
      {"googlenet", zoo::googlenet},
      {"inception_v3", zoo::inception_v3},
      {"vgg16", [] { return zoo::vgg(16, 1000); }},
      {"vgg19", [] { return zoo::vgg(19, 1000); }},
      {"vgg19_22k", [] { return zoo::vgg(19, 21841); }},
      {"resnet50", [] { return zoo::resnet(50); }},
      {"resnet152", [] { return zoo::resnet(152); }},
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

Network make_zoo_network(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name) return e.make();
  std::string list;
  for (const auto& n : zoo_names()) list += (list.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown zoo model '" + name + "' (expected one of " + list + ")");
}

}  // namespace possim
