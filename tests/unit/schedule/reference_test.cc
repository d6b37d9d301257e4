// The reference evaluator (schedule/reference.h) on tiny inputs with hand-computed results,
// convolutions checked against naive loops written here, evaluate_reference_at() against the
// full evaluation, and the compare()/tolerance_for() error model.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "schedule/ops.h"
#include "schedule/reference.h"

namespace {

using namespace tessera::schedule;

constexpr double kU = 1.0 / 16777216.0;  // 2^-24

std::vector<float> output_of(const tessera::Result<ComputeDAG>& dag, const TensorValues& inputs,
                             const std::string& name) {
  EXPECT_TRUE(dag.ok()) << (dag.ok() ? "" : dag.error().message);
  if (!dag.ok()) return {};
  auto values = evaluate_reference(*dag, inputs);
  EXPECT_TRUE(values.ok()) << (values.ok() ? "" : values.error().message);
  if (!values.ok() || !values->count(name)) return {};
  return values->at(name);
}

void expect_values(const std::vector<float>& actual, const std::vector<double>& expected,
                   double tolerance = 1e-5) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << "element " << i;
  }
}

// conv2d in NCHW with OIHW weights [K, C/groups, R, S], written as plain loops.
std::vector<double> naive_conv2d_nchw(const Conv2dParams& p, const std::vector<float>& x,
                                      const std::vector<float>& w) {
  const int64_t oh_n =
      (p.height + 2 * p.pad_h - p.dilation_h * (p.kernel_h - 1) - 1) / p.stride_h + 1;
  const int64_t ow_n =
      (p.width + 2 * p.pad_w - p.dilation_w * (p.kernel_w - 1) - 1) / p.stride_w + 1;
  const int64_t cpg = p.in_channels / p.groups, kpg = p.out_channels / p.groups;
  std::vector<double> out(static_cast<size_t>(p.batch * p.out_channels * oh_n * ow_n), 0.0);
  for (int64_t n = 0; n < p.batch; ++n)
    for (int64_t k = 0; k < p.out_channels; ++k)
      for (int64_t oh = 0; oh < oh_n; ++oh)
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          double acc = 0;
          const int64_t group = k / kpg;
          for (int64_t rc = 0; rc < cpg; ++rc)
            for (int64_t rr = 0; rr < p.kernel_h; ++rr)
              for (int64_t rs = 0; rs < p.kernel_w; ++rs) {
                const int64_t ih = oh * p.stride_h - p.pad_h + rr * p.dilation_h;
                const int64_t iw = ow * p.stride_w - p.pad_w + rs * p.dilation_w;
                if (ih < 0 || ih >= p.height || iw < 0 || iw >= p.width) continue;
                const int64_t c = group * cpg + rc;
                acc += static_cast<double>(
                           x[((n * p.in_channels + c) * p.height + ih) * p.width + iw]) *
                       w[((k * cpg + rc) * p.kernel_h + rr) * p.kernel_w + rs];
              }
          out[((n * p.out_channels + k) * oh_n + oh) * ow_n + ow] = acc;
        }
  return out;
}

TEST(ReferenceTest, MatmulTwoByTwo) {
  TensorValues in{{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7, 8}}};
  expect_values(output_of(matmul(2, 2, 2), in, "C"), {19, 22, 43, 50});
  expect_values(output_of(matmul(2, 2, 2, false, true), in, "C"), {17, 23, 39, 53});
  expect_values(output_of(matmul(2, 2, 2, true, false), in, "C"), {26, 30, 38, 44});
  TensorValues dense{{"X", {1, 2}}, {"W", {3, 4, 5, 6}}, {"bias", {10, 20}}};
  expect_values(output_of(dense_bias(1, 2, 2), dense, "Y"), {21, 37});
}

TEST(ReferenceTest, Elementwise) {
  TensorValues x{{"X", {-1, 0, 2.5f, -3}}};
  expect_values(output_of(make_op("relu", {{"m", 2}, {"n", 2}}), x, "Y"), {0, 0, 2.5, 0});
  TensorValues ab{{"A", {1, 2}}, {"B", {3, 4}}};
  expect_values(output_of(elementwise(Elementwise::kAdd, {2}), ab, "Y"), {4, 6});
  expect_values(output_of(elementwise(Elementwise::kMul, {2}), ab, "Y"), {3, 8});
  TensorValues s{{"X", {0, 2}}};
  expect_values(output_of(elementwise(Elementwise::kSigmoid, {2}), s, "Y"),
                {0.5, 1.0 / (1.0 + std::exp(-2.0))}, 1e-6);
  TensorValues g{{"X", {0, 1}}};
  expect_values(output_of(elementwise(Elementwise::kGelu, {2}), g, "Y"),
                {0.0, 0.5 * (1.0 + std::erf(1.0 / std::sqrt(2.0)))}, 1e-6);
}

TEST(ReferenceTest, SoftmaxRowsSumToOneAndAreShiftInvariant) {
  // Row 1 would overflow exp() without the max subtraction.
  TensorValues in{{"X", {1, 1, 1, 1, 1000, 1001, 1002, 1003}}};
  std::vector<float> y = output_of(softmax({2, 4}), in, "softmax");
  ASSERT_EQ(y.size(), 8u);
  double denom = 0;
  for (int j = 0; j < 4; ++j) denom += std::exp(static_cast<double>(j));
  std::vector<double> expected{0.25, 0.25, 0.25, 0.25};
  for (int j = 0; j < 4; ++j) expected.push_back(std::exp(static_cast<double>(j)) / denom);
  expect_values(y, expected, 1e-6);
  for (int row = 0; row < 2; ++row) {
    double sum = 0;
    for (int j = 0; j < 4; ++j) sum += y[row * 4 + j];
    EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << row;
  }
}

TEST(ReferenceTest, LayerNormNormalizesEachRow) {
  const int rows = 3, n = 8;
  std::vector<float> x;
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < n; ++j)
      x.push_back(static_cast<float>(std::sin(j + 3.0 * r) * (r + 1) + r));
  for (auto [gamma, beta] : {std::pair<float, float>{1, 0}, {2, 3}}) {
    TensorValues in{
        {"X", x}, {"gamma", std::vector<float>(n, gamma)}, {"beta", std::vector<float>(n, beta)}};
    std::vector<float> y = output_of(layer_norm({rows, n}), in, "layer_norm");
    ASSERT_EQ(y.size(), static_cast<size_t>(rows * n));
    for (int r = 0; r < rows; ++r) {
      double mean = 0, var = 0;
      for (int j = 0; j < n; ++j) mean += y[r * n + j];
      mean /= n;
      for (int j = 0; j < n; ++j) var += (y[r * n + j] - mean) * (y[r * n + j] - mean);
      var /= n;
      EXPECT_NEAR(mean, beta, 1e-5) << "row " << r;
      EXPECT_NEAR(var, gamma * gamma, 1e-3 * gamma * gamma) << "row " << r;
    }
  }
}

TEST(ReferenceTest, PoolingWithPadding) {
  // 3x3 input, 2x2 windows, stride 2, padding 1: the windows hold 1, 2, 2 and 4 real elements.
  Pool2dParams p{1, 1, 3, 3, 2, 2, 2, 2, 1, 1};
  TensorValues negative{{"X", {-1, -2, -3, -4, -5, -6, -7, -8, -9}}};
  // Max pool pads with -inf: all-negative windows never pick up a padding zero.
  expect_values(output_of(max_pool2d(p), negative, "pool"), {-1, -2, -4, -5});
  TensorValues positive{{"X", {1, 2, 3, 4, 5, 6, 7, 8, 9}}};
  // Average pool divides by the full window (count_include_pad).
  expect_values(output_of(avg_pool2d(p), positive, "pool"), {0.25, 1.25, 2.75, 7});
  TensorValues two{{"X", {1, 2, 3, 4, 5, 6, 7, 8}}};
  expect_values(output_of(global_avg_pool2d(1, 2, 2, 2), two, "pool"), {2.5, 6.5});
}

TEST(ReferenceTest, PointwiseConvIsAChannelMatmul) {
  Conv2dParams p{1, 3, 2, 2, 2, 1, 1};
  auto dag = conv2d(p);
  ASSERT_TRUE(dag.ok());
  TensorValues in = random_inputs(*dag, 3);
  std::vector<double> expected(8, 0.0);
  for (int k = 0; k < 2; ++k)
    for (int q = 0; q < 4; ++q)
      for (int c = 0; c < 3; ++c)
        expected[k * 4 + q] += double(in["W"][k * 3 + c]) * in["X"][c * 4 + q];
  expect_values(output_of(dag, in, "conv"), expected);
}

TEST(ReferenceTest, ConvolutionsMatchNaiveLoops) {
  Conv2dParams grouped;  // stride 2, pad 1, dilation 1, groups 2, non-square
  grouped.batch = 2;
  grouped.in_channels = 4;
  grouped.height = 5;
  grouped.width = 7;
  grouped.out_channels = 6;
  grouped.kernel_h = grouped.kernel_w = 3;
  grouped.stride_h = grouped.stride_w = 2;
  grouped.pad_h = grouped.pad_w = 1;
  grouped.groups = 2;
  Conv2dParams dilated = grouped;
  dilated.groups = 1;
  dilated.stride_h = dilated.stride_w = 1;
  dilated.dilation_h = dilated.dilation_w = 2;
  dilated.pad_h = 2;
  dilated.pad_w = 0;
  Conv2dParams depthwise = grouped;  // what make_op("depthwise_conv2d") builds
  depthwise.in_channels = depthwise.out_channels = depthwise.groups = 3;
  for (const Conv2dParams& p : {grouped, dilated, depthwise}) {
    auto dag = conv2d(p);
    ASSERT_TRUE(dag.ok()) << dag.error().message;
    SCOPED_TRACE(dag->summary());
    TensorValues in = random_inputs(*dag, 42);
    std::vector<double> expected = naive_conv2d_nchw(p, in["X"], in["W"]);
    int nonzero = 0;
    for (double v : expected) nonzero += std::fabs(v) > 1e-3;
    EXPECT_GT(nonzero, static_cast<int>(expected.size()) / 2);
    expect_values(output_of(dag, in, "conv"), expected);
  }
  auto dw = make_op(
      "depthwise_conv2d",
      {{"n", 2}, {"c", 3}, {"h", 5}, {"w", 7}, {"r", 3}, {"s", 3}, {"stride", 2}, {"pad", 1}});
  ASSERT_TRUE(dw.ok());
  TensorValues in = random_inputs(*dw, 5);
  expect_values(output_of(dw, in, "conv"), naive_conv2d_nchw(depthwise, in["X"], in["W"]));
}

TEST(ReferenceAtTest, SamePointsAsFullEvaluation) {
  Conv2dParams p{2, 4, 5, 7, 6, 3, 3, 2, 2, 1, 1, 1, 1, 2};
  for (auto dag : {conv2d(p), softmax({3, 7}), layer_norm({2, 9}), matmul(5, 3, 4)}) {
    ASSERT_TRUE(dag.ok());
    SCOPED_TRACE(dag->summary());
    const Tensor& out = dag->outputs()[0];
    TensorValues in = random_inputs(*dag, 11);
    auto full = evaluate_reference(*dag, in);
    ASSERT_TRUE(full.ok()) << full.error().message;
    const int64_t last = out.num_elements() - 1;
    std::vector<int64_t> points{last, 0, 1, last / 2, 7 % (last + 1)};
    auto at = evaluate_reference_at(*dag, in, out->name, points);
    ASSERT_TRUE(at.ok()) << at.error().message;
    ASSERT_EQ(at->size(), points.size());
    for (size_t i = 0; i < points.size(); ++i) {
      EXPECT_FLOAT_EQ((*at)[i], full->at(out->name)[points[i]]) << "point " << points[i];
    }
  }
}

// A stage read on demand is memoized densely while small and in a hash map past 2^21 points;
// this padded input (1502 x 1502) takes the hash map. Fails if that path returns a memoized
// value for the wrong point (the adjacent output points read 6 of each other's 9 inputs) or
// loses the padding at the border.
TEST(ReferenceAtTest, AStageTooLargeForTheDenseMemoIsEvaluatedTheSameWay) {
  Conv2dParams p;
  p.height = p.width = 1500;
  p.kernel_h = p.kernel_w = 3;
  p.pad_h = p.pad_w = 1;
  auto dag = conv2d(p);
  ASSERT_TRUE(dag.ok());
  ASSERT_GE(dag->stage_index("pad"), 0);
  ASSERT_GT(dag->stages()[size_t(dag->stage_index("pad"))].num_elements(), int64_t{1} << 21);
  TensorValues in = random_inputs(*dag, 5);
  const std::vector<float>& x = in.at("X");
  const std::vector<float>& w = in.at("W");
  auto direct = [&](int64_t h, int64_t c) {
    double sum = 0;
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t s = 0; s < 3; ++s) {
        const int64_t y = h + r - 1, xx = c + s - 1;
        if (y >= 0 && y < 1500 && xx >= 0 && xx < 1500) sum += double(x[size_t(y * 1500 + xx)]) * w[size_t(r * 3 + s)];
      }
    return sum;
  };
  const std::vector<std::pair<int64_t, int64_t>> pixels{{0, 0}, {0, 1}, {750, 750}, {750, 751}, {1499, 1499}};
  std::vector<int64_t> points;
  for (auto [h, c] : pixels) points.push_back(h * 1500 + c);
  auto at = evaluate_reference_at(*dag, in, "conv", points);
  ASSERT_TRUE(at.ok()) << at.error().message;
  for (size_t i = 0; i < pixels.size(); ++i)
    EXPECT_NEAR((*at)[i], direct(pixels[i].first, pixels[i].second), 1e-5) << "pixel " << i;
}

TEST(ReferenceErrorTest, BadInputsAndPoints) {
  auto dag = matmul(2, 2, 2);
  ASSERT_TRUE(dag.ok());
  auto missing = evaluate_reference(*dag, {{"A", {1, 2, 3, 4}}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "reference: no values for input 'B'");
  auto short_input = evaluate_reference(*dag, {{"A", {1, 2, 3}}, {"B", {1, 2, 3, 4}}});
  ASSERT_FALSE(short_input.ok());
  EXPECT_EQ(short_input.error().message, "reference: input 'A' has 3 values, expected 4");
  TensorValues in{{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7, 8}}};
  auto not_output = evaluate_reference_at(*dag, in, "A", {0});
  ASSERT_FALSE(not_output.ok());
  EXPECT_EQ(not_output.error().message, "reference: 'A' is not an output");
  for (int64_t bad : {int64_t{4}, int64_t{-1}}) {
    auto outside = evaluate_reference_at(*dag, in, "C", {0, bad});
    ASSERT_FALSE(outside.ok());
    EXPECT_EQ(outside.error().message, "reference: point " + std::to_string(bad) + " is outside C");
  }
}

TEST(CompareTest, ExactEqualityIsZeroError) {
  const float inf = std::numeric_limits<float>::infinity();
  Comparison c = compare({1, -2, 3.5f, -inf}, {1, -2, 3.5f, -inf}, 1e-9);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.max_error, 0.0);
  EXPECT_EQ(c.mismatches, 0);
}

TEST(CompareTest, NanIsAlwaysAMismatch) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Comparison c = compare({1, nan, 3}, {1, 2, 3}, 1e9);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_EQ(c.worst_index, 1);
  EXPECT_TRUE(std::isinf(c.max_error));
  Comparison both = compare({nan}, {nan}, 1e9);
  EXPECT_FALSE(both.ok);
  EXPECT_EQ(both.mismatches, 1);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(compare({inf}, {-inf}, 1e9).ok);
}

TEST(CompareTest, RelativeErrorAgainstTolerance) {
  // |1.001 - 1| / (1 + 1) is about 5e-4.
  Comparison loose = compare({1.001f}, {1.0f}, 1e-3);
  EXPECT_TRUE(loose.ok);
  EXPECT_NEAR(loose.max_error, 5e-4, 1e-6);
  Comparison tight = compare({1.001f}, {1.0f}, 1e-4);
  EXPECT_FALSE(tight.ok);
  EXPECT_EQ(tight.mismatches, 1);
  // The error is relative to 1 + |ref|: the same absolute error passes on a large value.
  EXPECT_TRUE(compare({1000.5f}, {1000.0f}, 1e-3).ok);
  EXPECT_FALSE(compare({1.5f}, {1.0f}, 1e-3).ok);
  Comparison worst = compare({1, 2.01f, 3.1f, 4}, {1, 2, 3, 4}, 1.0);
  EXPECT_TRUE(worst.ok);
  EXPECT_EQ(worst.worst_index, 2);
  EXPECT_NEAR(worst.max_error, 0.1 / 4, 1e-6);
  Comparison sizes = compare({1, 2}, {1}, 1.0);
  EXPECT_FALSE(sizes.ok);
  EXPECT_GT(sizes.mismatches, 0);
}

TEST(ToleranceTest, GrowsWithTheLongestReductionPath) {
  auto tol = [](const tessera::Result<ComputeDAG>& dag) {
    EXPECT_TRUE(dag.ok());
    return dag.ok() ? tolerance_for(*dag) : 0.0;
  };
  EXPECT_DOUBLE_EQ(tol(matmul(4, 4, 1000)), 8 * kU * 1000);
  EXPECT_DOUBLE_EQ(tol(matmul(4, 4, 4)), 8 * kU * 16);  // at least 16 terms
  EXPECT_DOUBLE_EQ(tol(elementwise(Elementwise::kRelu, {4, 4})), 8 * kU * 16);
  // max over 100, then a sum of 100 that depends on it: 200 on the longest path.
  EXPECT_DOUBLE_EQ(tol(softmax({2, 100})), 8 * kU * 200);
  EXPECT_DOUBLE_EQ(tol(layer_norm({2, 50})), 8 * kU * 100);  // mean then variance
  EXPECT_DOUBLE_EQ(tol(conv2d(Conv2dParams{1, 8, 6, 6, 4, 3, 3})), 8 * kU * (8 * 3 * 3));
}

}  // namespace
