// The model zoo: networks generated in code from each architecture's rules.
#pragma once
#include <string>
#include <vector>

#include "model/workload/network.hpp"

namespace possim {

// alexnet, cifar10_quick, googlenet, inception_v3, vgg16, vgg19, vgg19_22k, resnet50, resnet152
const std::vector<std::string>& zoo_names();
bool in_zoo(const std::string& name);
// The batch per GPU the model was trained at in the papers possim reproduces (POSEIDON.md
// section 7), else in its own paper; 0 for a name not in the zoo.
int paper_batch_per_gpu(const std::string& name);
// Throws std::invalid_argument for an unknown name.
Network make_zoo_network(const std::string& name);

}  // namespace possim
