// One generator per architecture family; model/zoo.cpp maps zoo names onto them.
#pragma once
#include <cstdint>

#include "model/workload/network.hpp"

namespace possim::zoo {

Network alexnet();
Network cifar10_quick();
Network googlenet();
Network inception_v3();
// depth 16 or 19; classes 1000 (ImageNet-1k) or 21841 (ImageNet-22k).
Network vgg(int depth, std::int64_t classes);
// depth 50 or 152.
Network resnet(int depth);

}  // namespace possim::zoo
