// collapse_pixel_axes: a pointwise conv's task computes the same values with (h, w) as one axis,
// and every DAG whose reads do not follow the pixel one to one is left alone.
#include <gtest/gtest.h>

#include "schedule/collapse_pixels.h"
#include "schedule/ops.h"
#include "schedule/reference.h"
#include "schedule/sketch.h"

namespace tessera::schedule {
namespace {

// relu(conv(X, W) + bias[k] + R): a ResNet bottleneck's last conv with its residual.
ComputeDAG conv_add_relu(int64_t kernel, int64_t stride, int64_t pad) {
  Conv2dParams p{1, 8, 6, 5, 4, kernel, kernel};  // H 6 != W 5: a swapped (h, w) shows
  p.stride_h = p.stride_w = stride;
  p.pad_h = p.pad_w = pad;
  const int64_t oh = (6 + 2 * pad - kernel) / stride + 1, ow = (5 + 2 * pad - kernel) / stride + 1;
  Tensor x = placeholder("X", {1, 8, 6, 5});
  Tensor w = constant_input("W", {4, 8, kernel, kernel});
  Tensor bias = constant_input("bias", {4});
  Tensor r = placeholder("R", {1, 4, oh, ow});
  Tensor conv = *conv2d_compute(x, w, p);
  Tensor y = compute("Y", {1, 4, oh, ow}, {conv, bias, r}, [&](const std::vector<Expr>& ax) {
    return max(conv(ax) + bias(ax[1]) + r(ax), float_imm(0.0));
  });
  return *ComputeDAG::make("conv_add_relu", {x, w, bias, r}, {y});
}

const TensorNode& stage(const ComputeDAG& dag, const std::string& name) {
  return *dag.stages()[static_cast<size_t>(dag.stage_index(name))];
}

TEST(CollapsePixels, APointwiseConvWithItsResidualComputesTheSameValuesOverOneAxis) {
  const ComputeDAG dag = conv_add_relu(1, 1, 0);
  auto collapsed = collapse_pixel_axes(dag);
  ASSERT_TRUE(collapsed.has_value());
  // The buffers keep their bytes: X, R and Y are [.., 30], the weights and bias as they were.
  EXPECT_EQ(stage(*collapsed, "X").shape, (std::vector<int64_t>{1, 8, 30}));
  EXPECT_EQ(stage(*collapsed, "R").shape, (std::vector<int64_t>{1, 4, 30}));
  EXPECT_EQ(stage(*collapsed, "Y").shape, (std::vector<int64_t>{1, 4, 30}));
  EXPECT_EQ(stage(*collapsed, "W").shape, (std::vector<int64_t>{4, 8, 1, 1}));
  const TensorNode& conv = stage(*collapsed, "conv");
  ASSERT_EQ(conv.axes.size(), 3u);
  EXPECT_EQ(conv.axes[2].name, "hw");
  EXPECT_EQ(conv.axes[2].extent, 30);
  ASSERT_EQ(conv.reduce_axes.size(), 1u);  // the 1x1 filter's taps are gone
  EXPECT_EQ(conv.reduce_axes[0].extent, 8);
  EXPECT_NE(collapsed->workload_key(), dag.workload_key());

  // The same flat inputs give the same flat output: fails on a pixel order other than h*W + w,
  // a tap read at anything but 0, or a residual read at another pixel.
  const TensorValues inputs = random_inputs(dag, 3);
  auto expected = evaluate_reference(dag, inputs);
  auto actual = evaluate_reference(*collapsed, inputs);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  ASSERT_TRUE(actual.ok()) << actual.error().message;
  ASSERT_EQ(actual->at("Y").size(), expected->at("Y").size());
  for (size_t i = 0; i < expected->at("Y").size(); ++i) {
    ASSERT_FLOAT_EQ(actual->at("Y")[i], expected->at("Y")[i]) << "at " << i;
  }
}

// The op library's pointwise conv + bias + relu is collapsed as a whole, its epilogue's axes
// named as the conv's, so every sketch applies, the fused tilings included. Fails when the
// epilogue is built over an already-collapsed conv (its axes i, j, k, which the tile_fuse
// sketches do not find) or when a sketch's steps name loops the collapsed stages lack.
TEST(CollapsePixels, EverySketchOfAPointwiseConvOpApplies) {
  auto dag = conv2d_bias_relu(Conv2dParams{1, 24, 7, 5, 40, 1, 1});
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  EXPECT_EQ(stage(*dag, "Y").shape, (std::vector<int64_t>{1, 40, 35}));
  std::mt19937_64 rng(5);
  int fused = 0;
  for (const Sketch& sketch : generate_sketches(*dag)) {
    fused += sketch.id.find("tile_fuse") != std::string::npos;
    for (int i = 0; i < 8; ++i) {
      auto state = apply_candidate(*dag, sketch, sketch.knobs.sample(rng));
      EXPECT_TRUE(state.ok()) << sketch.id << ": " << state.error().message;
    }
  }
  EXPECT_GE(fused, 2);  // conv:tile_fuse(Y) and conv:packed:tile_fuse(Y)
}

TEST(CollapsePixels, ConvsThatReadNeighbouringOrStridedPixelsAreLeftAlone) {
  // A 3x3 conv reads h + r; a strided 1x1 conv reads 2h from an input of other extents.
  EXPECT_FALSE(collapse_pixel_axes(conv_add_relu(3, 1, 1)).has_value());
  EXPECT_FALSE(collapse_pixel_axes(conv_add_relu(1, 2, 0)).has_value());
}

TEST(CollapsePixels, TransposesAndReductionsOverThePixelsAreLeftAlone) {
  // Y[n, c, h, w] = X[n, c, w, h] on a square image: every tensor is pixel-shaped, but the read
  // is not at (h, w).
  Tensor x = placeholder("X", {1, 2, 4, 4});
  Tensor t = compute("Y", {1, 2, 4, 4}, {x}, [&](const std::vector<Expr>& ax) {
    return x(ax[0], ax[1], ax[3], ax[2]);
  });
  EXPECT_FALSE(collapse_pixel_axes(*ComputeDAG::make("transpose", {x}, {t})).has_value());
  // A pooling reduces over the pixels: its output has no pixel axes to collapse.
  EXPECT_FALSE(collapse_pixel_axes(*global_avg_pool2d(1, 3, 4, 4)).has_value());
  // A stage of another shape reading a pixel-shaped tensor (a column sum over h beside the
  // elementwise output) keeps the whole DAG as it is.
  Tensor y = compute("Y", {1, 2, 4, 4}, {x}, [&](const std::vector<Expr>& ax) { return x(ax) * 2.0f; });
  Tensor col = reduce("col", {1, 2, 4}, {4}, ReduceKind::kSum, {x},
                      [&](const std::vector<Expr>& ax, const std::vector<Expr>& r) {
                        return x(ax[0], ax[1], r[0], ax[2]);
                      });
  EXPECT_FALSE(collapse_pixel_axes(*ComputeDAG::make("two_outputs", {x}, {y, col})).has_value());
}

}  // namespace
}  // namespace tessera::schedule
