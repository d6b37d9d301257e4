// Asymmetric convolution padding (Conv2dParams::pad_bottom / pad_right, for ONNX `pads` and
// Inception's 1x7 convolutions) and the workload keys it must leave alone: the keys below
// were computed by the op library before asymmetric padding existed, and records and configs
// depend on them.
#include <gtest/gtest.h>

#include "schedule/ops.h"
#include "schedule/reference.h"

namespace tessera::schedule {
namespace {

Conv2dParams base() {
  Conv2dParams p;
  p.batch = 1, p.in_channels = 8, p.height = 10, p.width = 12, p.out_channels = 16;
  p.kernel_h = 3, p.kernel_w = 3, p.pad_h = 1, p.pad_w = 1, p.stride_h = 2, p.stride_w = 1;
  return p;
}

TEST(ConvPadding, WorkloadKeysOfSymmetricOpsAreUnchanged) {
  Conv2dParams p = base();
  Conv2dParams no_pad = p;
  no_pad.pad_h = no_pad.pad_w = 0;
  Conv2dParams pad_w_only = p;
  pad_w_only.pad_h = 0, pad_w_only.pad_w = 2, pad_w_only.kernel_w = 5;
  Conv2dParams depthwise = p;
  depthwise.groups = 8, depthwise.out_channels = 8;
  Conv2dParams nhwc = p;
  nhwc.layout = Layout::kNHWC;
  Pool2dParams pool;
  pool.batch = 1, pool.channels = 4, pool.height = 9, pool.width = 9, pool.kernel_h = 3,
  pool.kernel_w = 3;
  pool.stride_h = pool.stride_w = 2, pool.pad_h = pool.pad_w = 1;
  EXPECT_EQ(conv2d(p)->workload_key(), "conv2d-596fcae52c16f202");
  EXPECT_EQ(conv2d(no_pad)->workload_key(), "conv2d-c3f7f04e18c87a5b");
  EXPECT_EQ(conv2d(pad_w_only)->workload_key(), "conv2d-cfad5ea328c739af");
  EXPECT_EQ(conv2d(depthwise)->workload_key(), "conv2d-7002a2940be6ced7");
  EXPECT_EQ(conv2d(nhwc)->workload_key(), "conv2d-6bc66ca6ad39744e");
  EXPECT_EQ(conv2d_bias_relu(p)->workload_key(), "conv2d_bias_relu-b5cb88af57f56a23");
  EXPECT_EQ(max_pool2d(pool)->workload_key(), "max_pool2d-ec1788b264611bbf");
  EXPECT_EQ(avg_pool2d(pool)->workload_key(), "avg_pool2d-832825d8d4c26b69");
  // Naming the symmetric padding explicitly is the same computation.
  Conv2dParams explicit_pad = p;
  explicit_pad.pad_bottom = 1, explicit_pad.pad_right = 1;
  EXPECT_EQ(conv2d(explicit_pad)->workload_key(), conv2d(p)->workload_key());
}

TEST(ConvPadding, AsymmetricPaddingShapesAndValues) {
  Conv2dParams p = base();
  p.stride_h = 1, p.pad_h = 0, p.pad_bottom = 2, p.pad_w = 3, p.pad_right = 0;
  auto dag = conv2d(p);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  EXPECT_NE(dag->workload_key(), conv2d(base())->workload_key());
  EXPECT_NE(dag->summary().find("pad=0,3 pad_end=2,0"), std::string::npos) << dag->summary();
  // H: 10 + 0 + 2 - 3 + 1 = 10; W: 12 + 3 + 0 - 3 + 1 = 13.
  EXPECT_EQ(dag->outputs()[0]->shape, (std::vector<int64_t>{1, 16, 10, 13}));
  TensorValues in = random_inputs(*dag, 3);
  auto out = evaluate_reference(*dag, in);
  ASSERT_TRUE(out.ok()) << out.error().message;
  const auto& x = in.at("X");
  const auto& w = in.at("W");
  const auto& y = out->at("conv");
  // Direct sums at a few points, padding read as zero: top-left (pads only on the left),
  // bottom-right (pads only below).
  for (auto [k, oh, ow] : {std::tuple{0, 0, 0}, std::tuple{5, 9, 12}, std::tuple{15, 4, 1}}) {
    double sum = 0;
    for (int c = 0; c < 8; ++c)
      for (int r = 0; r < 3; ++r)
        for (int s = 0; s < 3; ++s) {
          int ih = oh + r, iw = ow + s - 3;
          if (ih < 0 || ih >= 10 || iw < 0 || iw >= 12) continue;
          sum += double(x[(c * 10 + ih) * 12 + iw]) * w[((k * 8 + c) * 3 + r) * 3 + s];
        }
    EXPECT_NEAR(y[(k * 10 + oh) * 13 + ow], sum, 1e-5) << k << " " << oh << " " << ow;
  }
}

TEST(ConvPadding, RefusesBadPaddingAndMismatchedTensors) {
  Conv2dParams p = base();
  p.pad_bottom = -2;
  auto dag = conv2d(p);
  ASSERT_FALSE(dag.ok());
  EXPECT_EQ(dag.error().message, "conv2d: pad_bottom (-2) must be >= -1");
  Tensor x = placeholder("X", {1, 8, 10, 11});
  Tensor w = placeholder("W", {16, 8, 3, 3});
  auto conv = conv2d_compute(x, w, base());
  ASSERT_FALSE(conv.ok());
  EXPECT_EQ(conv.error().message,
            "conv2d: input 'X' has shape [1,8,10,11], the parameters say [1,8,10,12]");
}

}  // namespace
}  // namespace tessera::schedule
