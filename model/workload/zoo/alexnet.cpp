// AlexNet as BVLC Caffe's bvlc_alexnet prototxt: LRN before pooling, grouped conv2/4/5.
#include "model/workload/zoo/generators.hpp"
#include "model/workload/zoo/net_builder.hpp"

namespace possim::zoo {

Network alexnet() {
  NetBuilder b("alexnet", "AlexNet (BVLC Caffe), 227x227 crop, 2-group conv2/4/5, 1000 classes",
               {3, 227, 227});
  b.conv("conv1", 96, 11, 4);
  b.relu("relu1");
  b.lrn("norm1", 5);
  b.max_pool("pool1", 3, 2, 0, true);
  b.conv("conv2", 256, 5, 1, 2, 2);
  b.relu("relu2");
  b.lrn("norm2", 5);
  b.max_pool("pool2", 3, 2, 0, true);
  b.conv("conv3", 384, 3, 1, 1);
  b.relu("relu3");
  b.conv("conv4", 384, 3, 1, 1, 2);
  b.relu("relu4");
  b.conv("conv5", 256, 3, 1, 1, 2);
  b.relu("relu5");
  b.max_pool("pool5", 3, 2, 0, true);
  b.fc("fc6", 4096);
  b.relu("relu6");
  b.dropout("drop6");
  b.fc("fc7", 4096);
  b.relu("relu7");
  b.dropout("drop7");
  b.fc("fc8", 1000);
  b.softmax("prob");
  return b.finish();
}

}  // namespace possim::zoo
