// Channels-last networks (graph/channels_last.h): every task of a rewritten network equals the
// plain NCHW interpretation of the original model (network_check.h compares an NHWC tensor with
// the interpreter's NCHW value transposed), the layout conversions sit only at the network's
// edges and at readers that need NCHW, and the executor runs the rewritten graph to the same
// outputs as the interpreter on the original.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "graph/channels_last.h"
#include "graph/interpret.h"
#include "graph/prepare.h"
#include "executor_check.h"
#include "network_check.h"
#include "onnx_model_builder.h"
#include "test_models.h"
#include "runtime/network_executor.h"

namespace tessera::graph {
namespace {

using testing::check_network;
using testing::Checked;
using testing::task_ops;
using B = testing::ModelBuilder;

// A strided depthwise conv with non-square weights, a per-channel scale ([C,1,1], broadcast by
// numpy rules) and bias, a padded average pool, a Concat along the channels, 4-D graph outputs,
// and a Softmax that has no NHWC form.
std::string depthwise_network() {
  B m;
  m.input("x", {1, 6, 9, 11});
  m.weight("dw", {6, 1, 3, 2}), m.weight("dwb", {6});
  auto* dw = m.node("Conv", {"x", "dw", "dwb"}, {"d"});
  B::attr(dw, "group", int64_t{6}), B::attr(dw, "strides", std::vector<int64_t>{2, 1});
  B::attr(dw, "pads", std::vector<int64_t>{1, 0, 1, 1});
  m.weight("scale", {6, 1, 1});
  m.node("Mul", {"d", "scale"}, {"ds"});
  m.floats("lo", {}, {0.0f}), m.floats("hi", {}, {0.5f});
  m.node("Clip", {"ds", "lo", "hi"}, {"dc"});
  auto* ap = m.node("AveragePool", {"dc"}, {"a"});
  B::attr(ap, "kernel_shape", std::vector<int64_t>{2, 3}), B::attr(ap, "strides", std::vector<int64_t>{1, 2});
  B::attr(ap, "pads", std::vector<int64_t>{0, 1, 1, 1});
  m.node("Softmax", {"dc"}, {"sm"});
  B::attr(m.node("Concat", {"ds", "dc"}, {"cat"}), "axis", int64_t{1});
  m.node("Relu", {"cat"}, {"catr"});
  m.output("a");
  m.output("sm");
  m.output("catr");
  return m.bytes();
}

// A failure here names the bug: a conv's weights permuted wrong, its bias read along the wrong
// axis, a pool's rows and columns swapped, or an edge transpose missing or misnamed.
// The miniature ResNet of test_models.h.
TEST(ChannelsLast, ResidualNetworkMatchesTheInterpreter) {
  Checked c = check_network(testing::residual_blocks_model(), 1e-4, /*channels_last=*/true);
  // The input's transpose folds into the stem's task and the pool's back-transpose into the
  // flatten's: no task of its own converts a layout.
  EXPECT_EQ(task_ops(c.tasks), (std::vector<std::string>{"Transpose,Conv,Relu", "MaxPool", "Conv,Relu",
                                                         "Conv,Add,Relu", "GlobalAveragePool,Transpose,Flatten",
                                                         "Gemm"}));
  EXPECT_EQ(c.compared, 8);
  // The convs compute in NHWC: the block's output is [N, H, W, C].
  ASSERT_EQ(c.tasks.tasks.size(), 6u);
  EXPECT_EQ(c.tasks.tasks[3].dag.outputs()[0]->shape, (std::vector<int64_t>{1, 6, 6, 8}));
  int transposes = 0;
  for (const Node& n : c.folded.nodes) transposes += n.op_type == "Transpose";
  EXPECT_EQ(transposes, 2);
}

TEST(ChannelsLast, DepthwiseScaleAndPoolsMatchTheInterpreter) {
  Checked c = check_network(depthwise_network(), 1e-4, /*channels_last=*/true);
  EXPECT_GE(c.compared, 3);
  // The 4-D graph outputs keep their names and NCHW shapes.
  EXPECT_EQ(c.folded.info("a")->shape, (std::vector<int64_t>{1, 6, 5, 6}));
  // Softmax has no NHWC form, so it reads `dc` transposed back; the rest stays NHWC, the
  // Concat along NHWC's channel axis (fails if the axis is not moved: the shapes disagree).
  for (const Node& n : c.folded.nodes) {
    if (n.op_type == "Softmax") {
      EXPECT_EQ(n.inputs[0], "dc");
    }
    if (n.op_type == "Conv" || n.op_type == "AveragePool") {
      EXPECT_TRUE(is_channels_last(n)) << n.label();
    }
    if (n.op_type == "Concat") {
      EXPECT_EQ(n.get_int("axis", 0), 3);
      EXPECT_EQ(n.inputs, (std::vector<std::string>{"ds__nhwc", "dc__nhwc"}));
    }
  }
}

// The interpreter's own NHWC path (transposes around the NCHW operator) agrees with the
// original graph: the executor's reference in `tessera run` reads the rewritten graph's tensors.
TEST(ChannelsLast, RewrittenGraphInterpretsToTheSameOutputs) {
  auto raw = import_onnx_bytes(depthwise_network(), "model.onnx");
  ASSERT_TRUE(raw.ok()) << raw.error().message;
  auto prepared = prepare_network(*raw, ActivationLayout::kNHWC);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  std::map<std::string, std::vector<float>> inputs;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int i = 0; i < 6 * 9 * 11; ++i) inputs["x"].push_back(dist(rng));
  auto want = interpret(*raw, inputs);
  auto got = interpret(prepared->graph, inputs);
  ASSERT_TRUE(want.ok()) << want.error().message;
  ASSERT_TRUE(got.ok()) << got.error().message;
  for (const std::string& out : raw->outputs) {
    ASSERT_EQ(got->at(out).shape, want->at(out).shape) << out;
    for (size_t i = 0; i < want->at(out).data.size(); ++i)
      ASSERT_NEAR(got->at(out).data[i], want->at(out).data[i], 1e-9) << out << " at " << i;
  }
}

// The executor runs the NHWC network: compiled kernels, buffers of the rewritten graph, outputs
// under the model's names equal to the interpreter's on the original model.
TEST(ChannelsLast, ExecutorRunsTheRewrittenNetwork) {
  for (const std::string& bytes : {testing::residual_blocks_model(), depthwise_network()}) {
    auto raw = import_onnx_bytes(bytes, "model.onnx");
    ASSERT_TRUE(raw.ok()) << raw.error().message;
    auto prepared = prepare_network(*raw, ActivationLayout::kNHWC);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    const auto errors = testing::executor_errors(*raw, *prepared, 9);
    EXPECT_EQ(errors.size(), raw->outputs.size());
    for (const auto& e : errors) EXPECT_LE(e.max_error, 1e-4) << e.name;
  }
}

TEST(ChannelsLast, LayoutNamesParse) {
  EXPECT_EQ(*parse_layout("nhwc"), ActivationLayout::kNHWC);
  EXPECT_EQ(*parse_layout("nchw"), ActivationLayout::kNCHW);
  auto bad = parse_layout("NCHW16c");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("expected nhwc or nchw"), std::string::npos);
}

}  // namespace
}  // namespace tessera::graph
