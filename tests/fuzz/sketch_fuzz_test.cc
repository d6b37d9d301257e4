// Sketch fuzzing: for every op of the library at two shapes, candidates sampled uniformly
// from every sketch's knob space (plus mutations of them) are applied, lowered, compiled and
// compared with the reference. Candidates must be valid by construction: a rejection fails
// the test with its reason. TESSERA_SKETCH_SAMPLES (default 200 per op and shape) scales it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "jit_test_util.h"
#include "op_cases.h"
#include "schedule/sketch.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

// Attention's softmax as graph fusion builds it: a scale stage read twice (by the max and by
// the exp), rank 4, so the row sketch keeps a row buffer of an input stage and fuses 3 row axes.
Result<ComputeDAG> scaled_softmax(std::vector<int64_t> shape) {
  using Exprs = std::vector<Expr>;
  const int64_t n = shape.back();
  std::vector<int64_t> rows(shape.begin(), shape.end() - 1);
  auto at = [](const Exprs& row, const Expr& col) {
    Exprs p = row;
    p.push_back(col);
    return p;
  };
  auto row_of = [](const Exprs& ax) { return Exprs(ax.begin(), ax.end() - 1); };
  Tensor x = placeholder("X", shape);
  Tensor scaled = compute("scaled", shape, {x}, [&](const Exprs& ax) { return x(ax) * Expr(0.125); });
  Tensor mx = reduce("maxval", rows, {n}, ReduceKind::kMax, {scaled},
                     [&](const Exprs& ax, const Exprs& r) { return scaled(at(ax, r[0])); });
  Tensor ex = compute("expval", shape, {scaled, mx},
                      [&](const Exprs& ax) { return exp(scaled(ax) - mx(row_of(ax))); });
  Tensor sum = reduce("expsum", rows, {n}, ReduceKind::kSum, {ex},
                      [&](const Exprs& ax, const Exprs& r) { return ex(at(ax, r[0])); });
  Tensor out = compute("softmax", shape, {ex, sum}, [&](const Exprs& ax) { return ex(ax) / sum(row_of(ax)); });
  return ComputeDAG::make("scaled_softmax", {x}, {out});
}

// A conv task as graph fusion builds it: conv -> bias_add -> add (a residual input) -> relu, the
// two middle stages inlined, so the conv's tile is fused into the relu's through them.
Result<ComputeDAG> conv_bias_add_relu(const Conv2dParams& p) {
  using Exprs = std::vector<Expr>;
  auto base = conv2d(p);
  if (!base) return base.error();
  Tensor conv = base->outputs().front();
  Tensor bias = constant_input("bias", {p.out_channels});
  Tensor residual = placeholder("R", conv->shape);
  Tensor biased = compute("bias_add", conv->shape, {conv, bias}, [&](const Exprs& ax) { return conv(ax) + bias(ax[1]); });
  Tensor added = compute("add", conv->shape, {biased, residual}, [&](const Exprs& ax) { return biased(ax) + residual(ax); });
  Tensor relu = compute("relu", conv->shape, {added}, [&](const Exprs& ax) { return max(added(ax), float_imm(0.0)); });
  std::vector<Tensor> inputs;
  for (const Tensor& t : base->stages()) {
    if (t->is_placeholder) inputs.push_back(t);
  }
  inputs.push_back(bias);
  inputs.push_back(residual);
  return ComputeDAG::make("conv_bias_add_relu", inputs, {relu});
}

std::vector<OpCase> shapes_for_sketches() {
  std::vector<OpCase> cases = op_cases();
  Conv2dParams conv{1, 8, 10, 12, 16, 3, 3};
  conv.pad_h = conv.pad_w = 1;
  cases.push_back({"matmul_64", [] { return matmul(64, 48, 32); }});
  // Prime extents past 16: the tile rules' ceil tiles (knobs.h), unswitched edge tiles
  // (partition.h) in the cache_write, fused and in-place tilings.
  cases.push_back({"matmul_prime_37x41x31", [] { return matmul(37, 41, 31); }});
  cases.push_back({"batch_matmul_prime", [] { return batch_matmul(3, 19, 37, 23); }});
  cases.push_back({"dense_bias_gelu_prime", [] { return dense_bias_gelu(7, 37, 29); }});
  cases.push_back({"conv2d_bias_relu_16", [=] { return conv2d_bias_relu(conv); }});
  Conv2dParams strided = conv;
  strided.stride_h = strided.stride_w = 2;
  cases.push_back({"conv_bias_add_relu_s2", [=] { return conv_bias_add_relu(strided); }});
  // Channels-last groups of 2 input and 4 output channels: a vector along the output channels
  // reads input channel (k / 4) * 2 + rc, a permuted window (Emitter::load_window) when the
  // tile's vector starts at a group boundary, a gather when it does not.
  Conv2dParams grouped{1, 12, 7, 6, 24, 3, 3};
  grouped.pad_h = grouped.pad_w = 1;
  grouped.groups = 6;
  grouped.layout = Layout::kNHWC;
  cases.push_back({"conv2d_bias_relu_nhwc_grouped", [=] { return conv2d_bias_relu(grouped); }});
  cases.push_back({"dense_bias_gelu_32", [] { return dense_bias_gelu(16, 32, 24); }});
  cases.push_back({"softmax_2x128", [] { return softmax({2, 128}); }});
  cases.push_back({"layer_norm_3x64", [] { return layer_norm({3, 64}); }});
  // Row sketches: rank 3 (fused rows), rows and row lengths that no width divides.
  cases.push_back({"softmax_2x3x20", [] { return softmax({2, 3, 20}); }});
  cases.push_back({"layer_norm_7x100", [] { return layer_norm({7, 100}); }});
  cases.push_back({"scaled_softmax_1x2x3x24", [] { return scaled_softmax({1, 2, 3, 24}); }});
  return cases;
}

class SketchFuzz : public ::testing::TestWithParam<OpCase> {};

TEST_P(SketchFuzz, SampledCandidatesMatchTheReference) {
  auto dag = GetParam().make();
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  std::vector<Sketch> sketches = generate_sketches(*dag);
  ASSERT_FALSE(sketches.empty());
  // Row-wise ops must get the row sketch, or this fuzzer silently stops covering it.
  const std::string& label = GetParam().label;
  if (label.find("softmax") != std::string::npos || label.find("layer_norm") != std::string::npos) {
    EXPECT_NE(sketches.back().id.find(":rows"), std::string::npos) << sketches.back().id;
  }
  // ...and a conv read through inlined stages must still get its fused sketch.
  if (label.find("conv_bias_add_relu") != std::string::npos) {
    EXPECT_EQ(sketches.front().id, "conv:tile_fuse(relu)");
  }
  const char* env = std::getenv("TESSERA_SKETCH_SAMPLES");
  const int samples = env ? std::atoi(env) : 200;
  std::mt19937_64 rng(42);
  int failures = 0;
  for (int i = 0; i < samples && failures < 3; ++i) {
    const Sketch& sketch = sketches[static_cast<size_t>(i) % sketches.size()];
    KnobValues values = sketch.knobs.sample(rng);
    if (i % 2) values = sketch.knobs.mutate(values, rng);
    auto state = apply_candidate(*dag, sketch, values);
    if (!state) {
      ++failures;
      ADD_FAILURE() << state.error().message << "\nknobs: " << sketch.knobs.to_json(values).dump();
      continue;
    }
    auto result = MatchesReference(*dag, sketch.steps(values));
    if (!result) {
      ++failures;
      ADD_FAILURE() << "sketch " << sketch.id << " knobs " << sketch.knobs.to_json(values).dump()
                    << "\n" << result.message();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, SketchFuzz, ::testing::ValuesIn(shapes_for_sketches()),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.label; });

}  // namespace
}  // namespace tessera::testing
