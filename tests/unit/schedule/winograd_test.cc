// Winograd F(2x2, 3x3) convolution (schedule/ops_winograd.cc): its DAG, fed the weights
// winograd_weights transforms, computes what the direct convolution computes, on the
// reference evaluator (which reads only the tensor expressions), for odd maps, uneven padding
// and batches; shapes it cannot compute are refused by name. Its compiled schedules are
// checked with every other op's in jit_ops_test.cc (tests/common/op_cases.h).
#include <gtest/gtest.h>

#include "schedule/ops.h"
#include "schedule/reference.h"

namespace {

using namespace tessera::schedule;

Conv2dParams nhwc3x3(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t pad) {
  Conv2dParams p;
  p.batch = n;
  p.in_channels = c;
  p.height = h;
  p.width = w;
  p.out_channels = k;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = pad;
  p.layout = Layout::kNHWC;
  return p;
}

// The largest |winograd - direct| over the output, both from the reference evaluator.
double max_difference(const Conv2dParams& p) {
  auto direct = conv2d(p, /*pixels_as_one_axis=*/false);
  auto winograd = conv2d_winograd(p);
  EXPECT_TRUE(direct.ok() && winograd.ok());
  if (!direct.ok() || !winograd.ok()) return 1e9;
  TensorValues inputs = random_inputs(*direct, 7);
  TensorValues transformed{{"X", inputs.at("X")}, {"U", winograd_weights(p, inputs.at("W"))}};
  auto expected = evaluate_reference(*direct, inputs);
  auto actual = evaluate_reference(*winograd, transformed);
  EXPECT_TRUE(expected.ok() && actual.ok());
  if (!expected.ok() || !actual.ok()) return 1e9;
  const std::vector<float>& want = expected->at("conv");
  const std::vector<float>& got = actual->at("conv");
  EXPECT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) worst = std::max(worst, std::abs(double(got[i]) - want[i]));
  return worst;
}

// A wrong tap, sign or tile origin moves outputs by the size of one product (about 0.1-1 with
// inputs in [-1, 1)); float rounding of the transforms stays near 1e-6.
TEST(Winograd, ComputesTheDirectConvolution) {
  EXPECT_LT(max_difference(nhwc3x3(1, 3, 6, 6, 4, 1)), 1e-5);
  EXPECT_LT(max_difference(nhwc3x3(1, 5, 7, 5, 3, 1)), 1e-5);   // odd maps: a partial last block
  EXPECT_LT(max_difference(nhwc3x3(2, 4, 5, 6, 2, 1)), 1e-5);   // two images: tiles of the second
  EXPECT_LT(max_difference(nhwc3x3(1, 2, 6, 7, 3, 0)), 1e-5);   // no padding
  Conv2dParams uneven = nhwc3x3(1, 3, 6, 5, 2, 1);
  uneven.pad_bottom = 2;
  uneven.pad_right = 0;
  EXPECT_LT(max_difference(uneven), 1e-5);
}

TEST(Winograd, SixteenTransformedWeightsPerChannelPair) {
  const Conv2dParams p = nhwc3x3(1, 3, 6, 6, 5, 1);
  auto dag = conv2d_winograd(p);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  std::vector<float> w(static_cast<size_t>(9 * 3 * 5), 0.0f);
  // A weight of 1 at the centre tap only (r = s = 1) of channel pair (c 2, k 4): U = G e G^T
  // is the outer product of G's middle column (0, 1/2, -1/2, 0) with itself.
  w[static_cast<size_t>(((1 * 3 + 1) * 3 + 2) * 5 + 4)] = 1.0f;
  const std::vector<float> u = winograd_weights(p, w);
  ASSERT_EQ(u.size(), 16u * 3 * 5);
  const double g1[4] = {0, 0.5, -0.5, 0};
  for (int e = 0; e < 4; ++e) {
    for (int f = 0; f < 4; ++f) EXPECT_DOUBLE_EQ(u[static_cast<size_t>(((e * 4 + f) * 3 + 2) * 5 + 4)], g1[e] * g1[f]);
  }
  EXPECT_EQ(u[static_cast<size_t>(((1 * 4 + 1) * 3 + 0) * 5 + 4)], 0.0f);  // other pairs untouched
}

TEST(Winograd, RefusesWhatItCannotCompute) {
  Conv2dParams p = nhwc3x3(1, 3, 6, 6, 4, 1);
  p.stride_h = p.stride_w = 2;
  EXPECT_NE(conv2d_winograd(p).error().message.find("stride"), std::string::npos);
  p = nhwc3x3(1, 3, 6, 6, 4, 1);
  p.kernel_h = p.kernel_w = 5;
  EXPECT_NE(conv2d_winograd(p).error().message.find("3x3"), std::string::npos);
  p = nhwc3x3(1, 3, 6, 6, 4, 1);
  p.layout = Layout::kNCHW;
  EXPECT_NE(conv2d_winograd(p).error().message.find("NHWC"), std::string::npos);
  p = nhwc3x3(1, 0, 6, 6, 4, 1);
  EXPECT_NE(conv2d_winograd(p).error().message.find("in_channels"), std::string::npos);
}

}  // namespace
