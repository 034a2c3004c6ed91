// ResNet-50/152 as torchvision defines them (v1.5: the stride sits on the 3x3 conv),
// with torchvision's module names.
#include <stdexcept>
#include <string>

#include "model/workload/zoo/generators.hpp"
#include "model/workload/zoo/net_builder.hpp"

namespace possim::zoo {

namespace {
// Main path first, then the projection (from the block input), then the sum.
void bottleneck(NetBuilder& b, const std::string& p, std::int64_t width, int stride,
                bool project) {
  const Shape in = b.cur();
  b.conv(p + "conv1", width, 1, 1, 0, 1, false);
  b.bn(p + "bn1");
  b.relu(p + "relu1");
  b.conv(p + "conv2", width, 3, stride, 1, 1, false);
  b.bn(p + "bn2");
  b.relu(p + "relu2");
  b.conv(p + "conv3", 4 * width, 1, 1, 0, 1, false);
  const Shape main = b.bn(p + "bn3");
  Shape shortcut = in;
  if (project) {
    b.set_cur(in);
    b.conv(p + "downsample.0", 4 * width, 1, stride, 0, 1, false);
    shortcut = b.bn(p + "downsample.1");
  }
  b.add(p + "add", main, shortcut);
  b.relu(p + "relu3");
}
}  // namespace

Network resnet(int depth) {
  static const int kBlocks50[] = {3, 4, 6, 3}, kBlocks152[] = {3, 8, 36, 3};
  if (depth != 50 && depth != 152) throw std::invalid_argument("ResNet depth must be 50 or 152");
  const int* blocks = depth == 50 ? kBlocks50 : kBlocks152;

  NetBuilder b("resnet" + std::to_string(depth),
               "ResNet-" + std::to_string(depth) +
                   " (torchvision v1.5, stride on the 3x3), 224x224 input, 1000 classes",
               {3, 224, 224});
  b.conv("conv1", 64, 7, 2, 3, 1, false);
  b.bn("bn1");
  b.relu("relu");
  b.max_pool("maxpool", 3, 2, 1);
  for (int s = 0; s < 4; ++s) {
    const std::int64_t width = std::int64_t(64) << s;
    for (int i = 0; i < blocks[s]; ++i) {
      const std::string p = "layer" + std::to_string(s + 1) + "." + std::to_string(i) + ".";
      bottleneck(b, p, width, i == 0 && s > 0 ? 2 : 1, i == 0);
    }
  }
  b.avg_pool("avgpool", 7, 1);
  b.fc("fc", 1000);
  b.softmax("prob");
  return b.finish();
}

}  // namespace possim::zoo
