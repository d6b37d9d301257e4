// Winograd convs in a network (graph/winograd.h): which convs the pass rewrites, the transformed
// weights it folds in, the interpreter's own Winograd loops against the original model, and the
// executor running the rewritten network to the model's outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "graph/interpret.h"
#include "graph/onnx/import.h"
#include "graph/prepare.h"
#include "graph/winograd.h"
#include "schedule/sketch.h"
#include "executor_check.h"
#include "onnx_model_builder.h"

namespace tessera::graph {
namespace {

using B = testing::ModelBuilder;

// conv a: 3x3 pad 1 on an 11x11 map, 16 -> 24 channels, biased: 6x6 = 36 blocks (the last row
// and column of blocks half outside the map): rewritten. conv b: stride 2: direct. conv c: 3x3
// on b's 6x6 map, 9 blocks: too few, direct. conv d: 3x3 with 8 input channels: too few, direct.
std::string mixed_convs() {
  B m;
  m.input("x", {1, 16, 11, 11});
  m.weight("wa", {24, 16, 3, 3}), m.weight("ba", {24});
  B::attr(m.node("Conv", {"x", "wa", "ba"}, {"a"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.node("Relu", {"a"}, {"ar"});
  m.weight("wb", {16, 24, 3, 3});
  B::attr(m.node("Conv", {"ar", "wb"}, {"b"}), "strides", std::vector<int64_t>{2, 2});
  m.weight("wc", {16, 16, 3, 3});
  B::attr(m.node("Conv", {"b", "wc"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.weight("wd", {16, 8, 3, 3});
  m.input("y", {1, 8, 12, 12});
  B::attr(m.node("Conv", {"y", "wd"}, {"d"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
  m.output("c");
  m.output("d");
  return m.bytes();
}

// The model imported, and prepared in NHWC with Winograd convs; failures are test failures.
std::pair<Graph, PreparedNetwork> mixed_prepared() {
  auto raw = import_onnx_bytes(mixed_convs(), "model.onnx");
  EXPECT_TRUE(raw.ok()) << (raw ? "" : raw.error().message);
  if (!raw) return {};
  auto prepared = prepare_network(*raw, ActivationLayout::kNHWC);
  EXPECT_TRUE(prepared.ok()) << (prepared ? "" : prepared.error().message);
  if (!prepared) return {};
  return {*raw, *prepared};
}

// Fails if the eligibility test lets a strided, small-map or few-channel conv through, or
// misses the one that qualifies.
TEST(WinogradGraph, RewritesOnlyTheConvsThatQualify) {
  auto [raw, prepared] = mixed_prepared();
  std::vector<std::string> winograd;
  for (const Node& n : prepared.graph.nodes) {
    if (is_winograd(n)) winograd.push_back(n.outputs[0]);
  }
  ASSERT_EQ(winograd.size(), 1u);
  EXPECT_EQ(winograd[0].rfind("a", 0), 0u) << winograd[0];
  for (const Node& n : prepared.graph.nodes) {
    if (!is_winograd(n)) continue;
    // Its weights are the folded [16, C, K] transform; the HWIO weights nobody reads are gone.
    EXPECT_EQ(prepared.graph.info(n.inputs[1])->shape, (std::vector<int64_t>{16, 16, 24}));
    EXPECT_TRUE(prepared.graph.is_constant(n.inputs[1]));
  }
  EXPECT_EQ(prepared.graph.constants.count("wa__hwio__winograd"), 1u);
  EXPECT_EQ(prepared.graph.constants.count("wa__hwio"), 0u);
  EXPECT_EQ(prepared.graph.constants.count("wb__hwio"), 1u);
  // Without Winograd nothing is rewritten (and NCHW networks never are).
  auto direct = prepare_network(raw, ActivationLayout::kNHWC, /*winograd=*/false);
  ASSERT_TRUE(direct.ok());
  for (const Node& n : direct->graph.nodes) EXPECT_FALSE(is_winograd(n)) << n.label();
  auto nchw = prepare_network(raw, ActivationLayout::kNCHW);
  ASSERT_TRUE(nchw.ok());
  for (const Node& n : nchw->graph.nodes) EXPECT_FALSE(is_winograd(n)) << n.label();
}

// The largest |y| of an output: the scale its rounding errors grow with (outputs near 0 come from
// cancelling terms of that size).
double scale_of(const std::vector<double>& y) {
  double m = 0;
  for (double v : y) m = std::max(m, std::abs(v));
  return m;
}

// The interpreter computes a Winograd conv with its own loops; it agrees with the direct conv
// of the original model to the rounding of U to float32 (about 1e-8 of the output's scale
// here). A wrong transform matrix, sign, tile origin or partial-block bound moves outputs by
// whole products (0.1-1, on a scale of a few hundred), far past 1e-6 of the scale.
TEST(WinogradGraph, InterpreterAgreesWithTheOriginalModel) {
  auto [raw, prepared] = mixed_prepared();
  const auto inputs = testing::uniform_inputs(raw, 11);
  auto want = interpret(raw, inputs);
  auto got = interpret(prepared.graph, inputs);
  ASSERT_TRUE(want.ok()) << want.error().message;
  ASSERT_TRUE(got.ok()) << got.error().message;
  for (const std::string& out : raw.outputs) {
    ASSERT_EQ(got->at(out).shape, want->at(out).shape) << out;
    const double tolerance = 1e-6 * scale_of(want->at(out).data);
    for (size_t i = 0; i < want->at(out).data.size(); ++i)
      ASSERT_NEAR(got->at(out).data[i], want->at(out).data[i], tolerance) << out << " at " << i;
  }
}

// Fails if the output transform is a stage of its own (a reduction, as it was first written),
// so that the relu after a Winograd conv makes a second pass over the output: in conv a's task
// every sketch must inline it into the relu and schedule only the transform and the products.
TEST(WinogradGraph, TheReluTakesInTheOutputTransform) {
  auto [raw, prepared] = mixed_prepared();
  const FusedTask* task = nullptr;
  for (const FusedTask& t : prepared.tasks.tasks) {
    const bool relu = std::find(t.ops.begin(), t.ops.end(), "Relu") != t.ops.end();
    if (relu && t.dag.stage_index("winograd_gemm") >= 0) task = &t;
  }
  ASSERT_NE(task, nullptr) << "no task holds conv a with its relu";
  const auto sketches = schedule::generate_sketches(task->dag);
  ASSERT_FALSE(sketches.empty());
  for (const auto& sketch : sketches) {
    EXPECT_EQ(sketch.id.find("conv:"), std::string::npos) << sketch.id;
    EXPECT_NE(sketch.id.find("winograd_gemm:"), std::string::npos) << sketch.id;
  }
}

// Compiled (default schedules), the rewritten network gives the original model's outputs, to
// float32 rounding of sums of a few hundred terms (1e-5 of the scale; a wrong index errs by
// 1e-3 of it or more).
TEST(WinogradGraph, ExecutorRunsTheRewrittenNetwork) {
  auto [raw, prepared] = mixed_prepared();
  const auto errors = testing::executor_errors(raw, prepared, 11);
  EXPECT_EQ(errors.size(), raw.outputs.size());
  for (const auto& e : errors) EXPECT_LE(e.max_error, 1e-5 * e.scale) << e.name;
}

}  // namespace
}  // namespace tessera::graph
