// Caffe's examples/cifar10 "quick" net: pooling before ReLU in stage 1, average pooling
// after, no nonlinearity between ip1 and ip2 (as in the prototxt).
#include "model/workload/zoo/generators.hpp"
#include "model/workload/zoo/net_builder.hpp"

namespace possim::zoo {

Network cifar10_quick() {
  NetBuilder b("cifar10_quick", "Caffe CIFAR-10 quick example, 32x32 input, 10 classes",
               {3, 32, 32});
  b.conv("conv1", 32, 5, 1, 2);
  b.max_pool("pool1", 3, 2, 0, true);
  b.relu("relu1");
  b.conv("conv2", 32, 5, 1, 2);
  b.relu("relu2");
  b.avg_pool("pool2", 3, 2, 0, true);
  b.conv("conv3", 64, 5, 1, 2);
  b.relu("relu3");
  b.avg_pool("pool3", 3, 2, 0, true);
  b.fc("ip1", 64);
  b.fc("ip2", 10);
  b.softmax("prob");
  return b.finish();
}

}  // namespace possim::zoo
