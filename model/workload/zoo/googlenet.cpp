// GoogLeNet as BVLC Caffe's bvlc_googlenet prototxt, without the two auxiliary heads
// (they only exist in training and the zoo quotes the network without them).
#include <string>

#include "model/workload/zoo/generators.hpp"
#include "model/workload/zoo/net_builder.hpp"

namespace possim::zoo {

namespace {
struct Module {
  const char* name;
  int c1x1, c3x3_reduce, c3x3, c5x5_reduce, c5x5, pool_proj;
};

// Branches in prototxt order, each starting from the module input, then the concat.
void inception(NetBuilder& b, const Module& m) {
  const std::string p = std::string("inception_") + m.name + "/";
  const Shape in = b.cur();
  const Shape b1 = b.conv(p + "1x1", m.c1x1, 1);
  b.relu(p + "relu_1x1");
  b.set_cur(in);
  b.conv(p + "3x3_reduce", m.c3x3_reduce, 1);
  b.relu(p + "relu_3x3_reduce");
  const Shape b2 = b.conv(p + "3x3", m.c3x3, 3, 1, 1);
  b.relu(p + "relu_3x3");
  b.set_cur(in);
  b.conv(p + "5x5_reduce", m.c5x5_reduce, 1);
  b.relu(p + "relu_5x5_reduce");
  const Shape b3 = b.conv(p + "5x5", m.c5x5, 5, 1, 2);
  b.relu(p + "relu_5x5");
  b.set_cur(in);
  b.max_pool(p + "pool", 3, 1, 1, true);
  const Shape b4 = b.conv(p + "pool_proj", m.pool_proj, 1);
  b.relu(p + "relu_pool_proj");
  b.concat(p + "output", {b1, b2, b3, b4});
}
}  // namespace

Network googlenet() {
  NetBuilder b("googlenet", "GoogLeNet (BVLC Caffe), 224x224 input, auxiliary heads excluded",
               {3, 224, 224});
  b.conv("conv1/7x7_s2", 64, 7, 2, 3);
  b.relu("conv1/relu_7x7");
  b.max_pool("pool1/3x3_s2", 3, 2, 0, true);
  b.lrn("pool1/norm1", 5);
  b.conv("conv2/3x3_reduce", 64, 1);
  b.relu("conv2/relu_3x3_reduce");
  b.conv("conv2/3x3", 192, 3, 1, 1);
  b.relu("conv2/relu_3x3");
  b.lrn("conv2/norm2", 5);
  b.max_pool("pool2/3x3_s2", 3, 2, 0, true);
  inception(b, {"3a", 64, 96, 128, 16, 32, 32});
  inception(b, {"3b", 128, 128, 192, 32, 96, 64});
  b.max_pool("pool3/3x3_s2", 3, 2, 0, true);
  inception(b, {"4a", 192, 96, 208, 16, 48, 64});
  inception(b, {"4b", 160, 112, 224, 24, 64, 64});
  inception(b, {"4c", 128, 128, 256, 24, 64, 64});
  inception(b, {"4d", 112, 144, 288, 32, 64, 64});
  inception(b, {"4e", 256, 160, 320, 32, 128, 128});
  b.max_pool("pool4/3x3_s2", 3, 2, 0, true);
  inception(b, {"5a", 256, 160, 320, 32, 128, 128});
  inception(b, {"5b", 384, 192, 384, 48, 128, 128});
  b.avg_pool("pool5/7x7_s1", 7, 1);
  b.dropout("pool5/drop_7x7_s1");
  b.fc("loss3/classifier", 1000);
  b.softmax("prob");
  return b.finish();
}

}  // namespace possim::zoo
