// VGG16/19 with Caffe's layer names (conv1_1 ... conv5_4, fc6-fc8).
#include <stdexcept>
#include <string>

#include "model/workload/zoo/generators.hpp"
#include "model/workload/zoo/net_builder.hpp"

namespace possim::zoo {

Network vgg(int depth, std::int64_t classes) {
  static const int kConvs16[] = {2, 2, 3, 3, 3}, kConvs19[] = {2, 2, 4, 4, 4};
  static const std::int64_t kWidths[] = {64, 128, 256, 512, 512};
  if (depth != 16 && depth != 19) throw std::invalid_argument("VGG depth must be 16 or 19");
  const int* convs = depth == 16 ? kConvs16 : kConvs19;

  std::string name = "vgg" + std::to_string(depth);
  std::string desc = "VGG" + std::to_string(depth) + ", 224x224 input, " +
                     std::to_string(classes) + " classes";
  if (classes != 1000) {
    name += "_22k";
    desc += " (ImageNet-22k classifier)";
  }
  NetBuilder b(name, desc, {3, 224, 224});
  for (int s = 0; s < 5; ++s) {
    for (int i = 1; i <= convs[s]; ++i) {
      const std::string id = std::to_string(s + 1) + "_" + std::to_string(i);
      b.conv("conv" + id, kWidths[s], 3, 1, 1);
      b.relu("relu" + id);
    }
    b.max_pool("pool" + std::to_string(s + 1), 2, 2);
  }
  b.fc("fc6", 4096);
  b.relu("relu6");
  b.dropout("drop6");
  b.fc("fc7", 4096);
  b.relu("relu7");
  b.dropout("drop7");
  b.fc("fc8", classes);
  b.softmax("prob");
  return b.finish();
}

}  // namespace possim::zoo
