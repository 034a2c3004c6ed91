// Inception-V3 as torchvision's inception_v3 (same as TF-slim): every conv is bias-free
// and followed by BatchNorm and ReLU (torchvision's BasicConv2d). The auxiliary head is
// included, its layers prefixed "aux.", listed where torchvision runs it: after Mixed_6e.
#include <string>

#include "model/workload/zoo/generators.hpp"
#include "model/workload/zoo/net_builder.hpp"

namespace possim::zoo {

namespace {
// BasicConv2d: conv (no bias) + BN + ReLU, named NAME.conv / NAME.bn / NAME.relu.
Shape basic(NetBuilder& b, const std::string& name, std::int64_t cout, int kh, int kw,
            int stride = 1, int pad_h = 0, int pad_w = 0) {
  if (kh == kw && pad_h == pad_w)
    b.conv(name + ".conv", cout, kh, stride, pad_h, 1, false);
  else
    b.conv_rect(name + ".conv", cout, kh, kw, pad_h, pad_w);  // 1xn / nx1, stride 1
  b.bn(name + ".bn");
  return b.relu(name + ".relu");
}

void inception_a(NetBuilder& b, const std::string& p, std::int64_t pool_features) {
  const Shape in = b.cur();
  const Shape b1 = basic(b, p + ".branch1x1", 64, 1, 1);
  b.set_cur(in);
  basic(b, p + ".branch5x5_1", 48, 1, 1);
  const Shape b5 = basic(b, p + ".branch5x5_2", 64, 5, 5, 1, 2, 2);
  b.set_cur(in);
  basic(b, p + ".branch3x3dbl_1", 64, 1, 1);
  basic(b, p + ".branch3x3dbl_2", 96, 3, 3, 1, 1, 1);
  const Shape b3 = basic(b, p + ".branch3x3dbl_3", 96, 3, 3, 1, 1, 1);
  b.set_cur(in);
  b.avg_pool(p + ".avgpool", 3, 1, 1);
  const Shape bp = basic(b, p + ".branch_pool", pool_features, 1, 1);
  b.concat(p + ".concat", {b1, b5, b3, bp});
}

void inception_b(NetBuilder& b, const std::string& p) {
  const Shape in = b.cur();
  const Shape b3 = basic(b, p + ".branch3x3", 384, 3, 3, 2);
  b.set_cur(in);
  basic(b, p + ".branch3x3dbl_1", 64, 1, 1);
  basic(b, p + ".branch3x3dbl_2", 96, 3, 3, 1, 1, 1);
  const Shape bd = basic(b, p + ".branch3x3dbl_3", 96, 3, 3, 2);
  b.set_cur(in);
  const Shape bp = b.max_pool(p + ".maxpool", 3, 2);
  b.concat(p + ".concat", {b3, bd, bp});
}

void inception_c(NetBuilder& b, const std::string& p, std::int64_t c7) {
  const Shape in = b.cur();
  const Shape b1 = basic(b, p + ".branch1x1", 192, 1, 1);
  b.set_cur(in);
  basic(b, p + ".branch7x7_1", c7, 1, 1);
  basic(b, p + ".branch7x7_2", c7, 1, 7, 1, 0, 3);
  const Shape b7 = basic(b, p + ".branch7x7_3", 192, 7, 1, 1, 3, 0);
  b.set_cur(in);
  basic(b, p + ".branch7x7dbl_1", c7, 1, 1);
  basic(b, p + ".branch7x7dbl_2", c7, 7, 1, 1, 3, 0);
  basic(b, p + ".branch7x7dbl_3", c7, 1, 7, 1, 0, 3);
  basic(b, p + ".branch7x7dbl_4", c7, 7, 1, 1, 3, 0);
  const Shape bd = basic(b, p + ".branch7x7dbl_5", 192, 1, 7, 1, 0, 3);
  b.set_cur(in);
  b.avg_pool(p + ".avgpool", 3, 1, 1);
  const Shape bp = basic(b, p + ".branch_pool", 192, 1, 1);
  b.concat(p + ".concat", {b1, b7, bd, bp});
}

void inception_d(NetBuilder& b, const std::string& p) {
  const Shape in = b.cur();
  basic(b, p + ".branch3x3_1", 192, 1, 1);
  const Shape b3 = basic(b, p + ".branch3x3_2", 320, 3, 3, 2);
  b.set_cur(in);
  basic(b, p + ".branch7x7x3_1", 192, 1, 1);
  basic(b, p + ".branch7x7x3_2", 192, 1, 7, 1, 0, 3);
  basic(b, p + ".branch7x7x3_3", 192, 7, 1, 1, 3, 0);
  const Shape b7 = basic(b, p + ".branch7x7x3_4", 192, 3, 3, 2);
  b.set_cur(in);
  const Shape bp = b.max_pool(p + ".maxpool", 3, 2);
  b.concat(p + ".concat", {b3, b7, bp});
}

// The 1x3 and 3x1 convs of a split branch both read the branch's 1x1 output; torchvision
// concatenates all six leaves in one torch.cat, so there is one concat here too.
void inception_e(NetBuilder& b, const std::string& p) {
  const Shape in = b.cur();
  const Shape b1 = basic(b, p + ".branch1x1", 320, 1, 1);
  b.set_cur(in);
  const Shape s3 = basic(b, p + ".branch3x3_1", 384, 1, 1);
  const Shape b3a = basic(b, p + ".branch3x3_2a", 384, 1, 3, 1, 0, 1);
  b.set_cur(s3);
  const Shape b3b = basic(b, p + ".branch3x3_2b", 384, 3, 1, 1, 1, 0);
  b.set_cur(in);
  basic(b, p + ".branch3x3dbl_1", 448, 1, 1);
  const Shape sd = basic(b, p + ".branch3x3dbl_2", 384, 3, 3, 1, 1, 1);
  const Shape bda = basic(b, p + ".branch3x3dbl_3a", 384, 1, 3, 1, 0, 1);
  b.set_cur(sd);
  const Shape bdb = basic(b, p + ".branch3x3dbl_3b", 384, 3, 1, 1, 1, 0);
  b.set_cur(in);
  b.avg_pool(p + ".avgpool", 3, 1, 1);
  const Shape bp = basic(b, p + ".branch_pool", 192, 1, 1);
  b.concat(p + ".concat", {b1, b3a, b3b, bda, bdb, bp});
}

// InceptionAux: 5x5/3 average pool, 1x1 -> 128, 5x5 -> 768, FC. Its adaptive average
// pool sees a 1x1 map there, a no-op, so it is not listed.
void aux_head(NetBuilder& b) {
  b.avg_pool("aux.avgpool", 5, 3);
  basic(b, "aux.conv0", 128, 1, 1);
  basic(b, "aux.conv1", 768, 5, 5);
  b.fc("aux.fc", 1000);
  b.softmax("aux.prob");
}
}  // namespace

Network inception_v3() {
  NetBuilder b("inception_v3",
               "Inception-V3 (torchvision / TF-slim), 299x299 input, auxiliary head included",
               {3, 299, 299});
  basic(b, "Conv2d_1a_3x3", 32, 3, 3, 2);
  basic(b, "Conv2d_2a_3x3", 32, 3, 3);
  basic(b, "Conv2d_2b_3x3", 64, 3, 3, 1, 1, 1);
  b.max_pool("maxpool1", 3, 2);
  basic(b, "Conv2d_3b_1x1", 80, 1, 1);
  basic(b, "Conv2d_4a_3x3", 192, 3, 3);
  b.max_pool("maxpool2", 3, 2);
  inception_a(b, "Mixed_5b", 32);
  inception_a(b, "Mixed_5c", 64);
  inception_a(b, "Mixed_5d", 64);
  inception_b(b, "Mixed_6a");
  inception_c(b, "Mixed_6b", 128);
  inception_c(b, "Mixed_6c", 160);
  inception_c(b, "Mixed_6d", 160);
  inception_c(b, "Mixed_6e", 192);
  const Shape c_out = b.cur();
  aux_head(b);
  b.set_cur(c_out);
  inception_d(b, "Mixed_7a");
  inception_e(b, "Mixed_7b");
  inception_e(b, "Mixed_7c");
  b.avg_pool("avgpool", 8, 1);
  b.dropout("dropout");
  b.fc("fc", 1000);
  b.softmax("prob");
  return b.finish();
}

}  // namespace possim::zoo
