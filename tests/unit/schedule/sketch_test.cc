// Sketch generation: which rules fire for which ops, stable ids, and candidates that are
// valid by construction (the sketch fuzzer covers every op at scale).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace {

using namespace tessera::schedule;

std::vector<std::string> ids(const ComputeDAG& dag) {
  std::vector<std::string> out;
  for (const Sketch& s : generate_sketches(dag)) out.push_back(s.id);
  return out;
}

TEST(Sketch, MatmulGetsCacheWriteTilingInPlaceTilingAndPanelsPackedInTheCall) {
  auto dag = matmul(64, 64, 64);
  EXPECT_EQ(ids(*dag), (std::vector<std::string>{"C:tile_cache", "C:tile", "C:packed_call:tile_cache"}));
  EXPECT_EQ(ids(*dag), ids(*matmul(64, 64, 64)));  // stable
}

TEST(Sketch, ConvolutionFusesItsEpilogueAndInlinesPadding) {
  Conv2dParams p{1, 4, 8, 8, 8, 3, 3};
  p.pad_h = p.pad_w = 1;
  auto dag = conv2d_bias_relu(p);
  auto sketches = generate_sketches(*dag);
  ASSERT_EQ(sketches.size(), 3u);
  EXPECT_EQ(sketches[0].id, "conv:tile_fuse(Y)");
  EXPECT_EQ(sketches[1].id, "Y:simple;conv:tile");
  EXPECT_EQ(sketches[2].id, "conv:packed:tile_fuse(Y)");
  std::mt19937_64 rng(1);
  KnobValues v = sketches[0].knobs.sample(rng);
  auto steps = sketches[0].steps(v);
  ASSERT_FALSE(steps.empty());
  EXPECT_TRUE(std::holds_alternative<ComputeInlineStep>(steps[0]));
  auto state = apply_candidate(*dag, sketches[0], v);
  ASSERT_TRUE(state.ok()) << state.error().message;
  const StageState& conv = state->stage(state->stage_index("conv"));
  EXPECT_EQ(conv.location, ComputeLocation::kAttached);
  EXPECT_EQ(conv.attach_stage, "Y");
}

// The first loops of a reorder of `stage` in the sketch's steps for some knob values.
std::vector<std::string> outer_loops(const ComputeDAG& dag, const std::string& sketch_id, const std::string& stage) {
  for (const Sketch& s : generate_sketches(dag)) {
    if (s.id != sketch_id) continue;
    std::mt19937_64 rng(3);
    for (const Step& step : s.steps(s.knobs.sample(rng))) {
      if (auto* r = std::get_if<ReorderStep>(&step); r && r->stage == stage) return r->order;
    }
  }
  return {};
}

// A depthwise conv reuses nothing across channels (each channel tile reads its own slice of
// input and weights), so the fused tile runs its channel blocks outermost and the pixel tiles
// inside one slice (1.28x on a stride-2 depthwise conv by hand, bench/NOTES.md). A dense conv
// reuses its input across output channels (a grouped one within a group) and keeps the batch,
// rows, columns, channels order.
TEST(Sketch, DepthwiseTileRunsChannelBlocksOutermostDenseKeepsItsOrder) {
  Conv2dParams p{1, 32, 12, 12, 32, 3, 3};
  p.pad_h = p.pad_w = 1;
  p.layout = Layout::kNHWC;
  p.groups = 32;
  auto depthwise = conv2d_bias_relu(p);
  ASSERT_TRUE(depthwise.ok()) << depthwise.error().message;
  const auto& axes = depthwise->stages()[static_cast<size_t>(depthwise->stage_index("conv"))]->axes;
  ASSERT_EQ(axes.size(), 4u);
  auto order = outer_loops(*depthwise, "conv:tile_fuse(Y)", "Y");
  ASSERT_GE(order.size(), 4u);
  // fails if the outer level keeps axis order (channels, the last axis, innermost of the four)
  EXPECT_EQ(order[0], axes[3].name + ".0");
  EXPECT_EQ(order[1], axes[0].name + ".0");
  EXPECT_EQ(order[4], axes[0].name + ".1");  // the next level is untouched
  order = outer_loops(*depthwise, "Y:simple;conv:tile", "conv");
  ASSERT_GE(order.size(), 4u);
  EXPECT_EQ(order[0], axes[3].name + ".0");  // the in-place tile too

  // fails if an axis that some input is reused across is moved: every one in a dense conv;
  // in a grouped one the output channels of a group share its input (k / 8 in the index)
  for (int64_t groups : {1, 4}) {
    p.groups = groups;
    auto conv = conv2d_bias_relu(p);
    ASSERT_TRUE(conv.ok()) << conv.error().message;
    order = outer_loops(*conv, "conv:tile_fuse(Y)", "Y");
    ASSERT_GE(order.size(), 4u);
    for (size_t a = 0; a < 4; ++a) EXPECT_EQ(order[a], axes[a].name + ".0") << groups << " groups, axis " << a;
  }
}

// Graph fusion builds conv -> bias_add -> relu as separate stages; bias_add is inlined, and
// the conv must still be fused into the relu's tile (not written out and read back by a
// separate relu pass, as happened on every conv of ResNet-50 before the inlined reader was
// looked through).
TEST(Sketch, ConvolutionFusesIntoTheReaderOfAnInlinedBiasAdd) {
  Conv2dParams p{1, 4, 8, 8, 32, 3, 3};
  p.pad_h = p.pad_w = 1;
  auto base = conv2d(p);
  ASSERT_TRUE(base.ok());
  Tensor conv = base->outputs().front();
  Tensor bias = constant_input("bias", {p.out_channels});
  Tensor biased = compute("bias_add", conv->shape, {conv, bias}, [&](const std::vector<Expr>& ax) {
    return conv(ax) + bias(ax[1]);
  });
  Tensor relu = compute("relu", conv->shape, {biased}, [&](const std::vector<Expr>& ax) {
    return max(biased(ax), float_imm(0.0));
  });
  std::vector<Tensor> inputs;
  for (const Tensor& t : base->stages()) {
    if (t->is_placeholder) inputs.push_back(t);
  }
  inputs.push_back(bias);
  auto dag = ComputeDAG::make("conv_bias_add_relu", inputs, {relu});
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  std::vector<std::string> all = ids(*dag);
  EXPECT_EQ(all.front(), "conv:tile_fuse(relu)");
  EXPECT_NE(std::find(all.begin(), all.end(), "conv:packed:tile_fuse(relu)"), all.end());
  const std::vector<Sketch> sketches = generate_sketches(*dag);
  std::mt19937_64 rng(3);
  KnobValues v = sketches.front().knobs.sample(rng);
  auto state = apply_candidate(*dag, sketches.front(), v);
  ASSERT_TRUE(state.ok()) << state.error().message;
  const StageState& fused = state->stage(state->stage_index("conv"));
  EXPECT_EQ(fused.location, ComputeLocation::kAttached);
  EXPECT_EQ(fused.attach_stage, "relu");
  EXPECT_EQ(state->stage(state->stage_index("bias_add")).location, ComputeLocation::kInlined);
}

// The packed sketch reads the weights from a copy packed at load, blocked by the vector width
// of the output channels; only ops with a constant input get one.
TEST(Sketch, PackedSketchPacksTheWeightsInBlocksOfItsVector) {
  Conv2dParams p{1, 4, 8, 8, 32, 3, 3};
  auto dag = conv2d(p);
  ASSERT_TRUE(dag.ok());
  std::vector<std::string> all = ids(*dag);
  ASSERT_EQ(all.back(), "conv:packed:tile_cache");
  const std::vector<Sketch> sketches = generate_sketches(*dag);
  const Sketch& packed = sketches.back();
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20; ++i) {
    KnobValues v = packed.knobs.sample(rng);
    auto state = apply_candidate(*dag, packed, v);
    ASSERT_TRUE(state.ok()) << state.error().message;
    const StageState& w = state->stage(state->stage_index("W.local"));
    EXPECT_TRUE(w.packed);
    ASSERT_EQ(w.layout.size(), 5u) << to_string(w.layout);
    const int64_t lanes = w.layout.back().block;
    EXPECT_EQ(w.layout.front().block, lanes);
    EXPECT_TRUE(w.layout.back().inner && w.layout.back().dim == 0) << to_string(w.layout);
    // The vector of output channels is that block, innermost in the accumulator tile.
    const StageState& acc = state->stage(state->stage_index("conv.local"));
    EXPECT_EQ(acc.loops.back().annotation, Annotation::kVectorize);
    EXPECT_EQ(acc.loops.back().extent, lanes);
    EXPECT_EQ(acc.layout.back().dim, 1) << to_string(acc.layout);
  }
  EXPECT_EQ(ids(*matmul(64, 64, 64)).back(), "C:packed_call:tile_cache")
      << "matmul reads no constant: its B is packed in the call, not at load";
}

// The value of knob `name` in `values` (its factors, or its one choice).
std::vector<int64_t> knob_value(const Sketch& sketch, const KnobValues& values, const std::string& name) {
  for (size_t k = 0; k < sketch.knobs.size(); ++k) {
    if (sketch.knobs.knobs()[k].name == name) return sketch.knobs.value(values, k);
  }
  ADD_FAILURE() << "no knob " << name;
  return {};
}

// A matmul packs B in every call into panels [N/v][K][v] of its vector v, and A, when its knob
// says so and the register tile has several rows r, into [M/r][K][r]. Fails if the panel keeps
// K outermost (a copy that changes nothing: the layout bug this rule first had), if B is
// packed at load (it is not constant), or if A's panels ignore the register tile.
TEST(Sketch, MatmulPanelsFollowTheRegisterTile) {
  auto dag = matmul(64, 96, 32);
  ASSERT_TRUE(dag.ok());
  const std::vector<Sketch> sketches = generate_sketches(*dag);
  const Sketch& sketch = sketches.back();
  ASSERT_EQ(sketch.id, "C:packed_call:tile_cache");
  std::mt19937_64 rng(3);
  int with_a = 0, without_a = 0;
  for (int i = 0; i < 40; ++i) {
    KnobValues v = sketch.knobs.sample(rng);
    auto state = apply_candidate(*dag, sketch, v);
    ASSERT_TRUE(state.ok()) << state.error().message;
    const int64_t lanes = knob_value(sketch, v, "C.j").back();
    const int64_t rows = knob_value(sketch, v, "C.i").back();
    const StageState& b = state->stage(state->stage_index("B.local"));
    EXPECT_FALSE(b.packed);
    ASSERT_EQ(b.layout.size(), 3u) << to_string(b.layout);
    EXPECT_TRUE(b.layout[0].dim == 1 && !b.layout[0].inner && b.layout[0].block == lanes) << to_string(b.layout);
    EXPECT_TRUE(b.layout[1].dim == 0) << to_string(b.layout);
    EXPECT_TRUE(b.layout[2].dim == 1 && b.layout[2].inner) << to_string(b.layout);
    const int a = state->stage_index("A.local");
    const bool pack_a = knob_value(sketch, v, "C.pack_rows")[0] == 1 && rows >= 2;
    EXPECT_EQ(a >= 0, pack_a) << "rows " << rows;
    if (a < 0) {
      ++without_a;
      continue;
    }
    ++with_a;
    const StageState& panel = state->stage(a);
    ASSERT_EQ(panel.layout.size(), 3u) << to_string(panel.layout);
    EXPECT_TRUE(panel.layout[0].dim == 0 && panel.layout[0].block == rows) << to_string(panel.layout);
    EXPECT_TRUE(panel.layout[2].dim == 0 && panel.layout[2].inner) << to_string(panel.layout);
  }
  EXPECT_GT(with_a, 0);
  EXPECT_GT(without_a, 0);
}

TEST(Sketch, SmallSpatialReductionsMayBeRFactored) {
  auto dag = softmax({2, 256});
  bool any_rfactor = false;
  for (const auto& id : ids(*dag)) any_rfactor |= id.find("maxval:rfactor") != std::string::npos;
  EXPECT_TRUE(any_rfactor);
  for (const auto& id : ids(*softmax({512, 256}))) {
    EXPECT_EQ(id.find("rfactor"), std::string::npos) << id;  // many rows: no need
  }
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The row sketch's candidate for `dag` with every knob at its first value but the widths.
State row_candidate(const ComputeDAG& dag, const Sketch** sketch_out = nullptr) {
  static std::vector<Sketch> keep;
  keep = generate_sketches(dag);
  const Sketch& rows = keep.back();
  EXPECT_EQ(rows.id.substr(rows.id.find(':')), ":rows");
  KnobValues v(rows.knobs.size(), 0);
  v[1] = v[2] = 2;  // vector and accumulator width 16
  v[3] = 1;         // parallel rows
  auto state = apply_candidate(dag, rows, v);
  EXPECT_TRUE(state.ok()) << state.error().message;
  if (sketch_out) *sketch_out = &rows;
  return state.ok() ? *state : State(dag);
}

TEST(Sketch, RowSketchIsAppendedAndLeavesTheOtherSketchesAlone) {
  for (const auto& dag : {softmax({64, 128}), layer_norm({8, 768}), softmax({2, 3, 40})}) {
    std::vector<std::string> all = ids(*dag);
    ASSERT_GE(all.size(), 2u);
    EXPECT_EQ(all.back(), dag->outputs()[0]->name + ":rows");
    for (size_t i = 0; i + 1 < all.size(); ++i) EXPECT_EQ(all[i].find(":rows"), std::string::npos);
  }
  // Per-stage sketches as before the row sketch existed (records name them).
  EXPECT_EQ(ids(*softmax({512, 256})),
            (std::vector<std::string>{"softmax:simple;expsum:simple;maxval:simple", "softmax:rows"}));
  // Matmul, elementwise ops and pooling are not row DAGs.
  for (const auto& dag : {matmul(64, 64, 64), elementwise(Elementwise::kGelu, {128, 3072}),
                          global_avg_pool2d(1, 8, 7, 7)}) {
    for (const auto& id : ids(*dag)) EXPECT_EQ(id.find(":rows"), std::string::npos) << id;
  }
}

TEST(Sketch, SoftmaxRowSketchComputesExpOncePerElement) {
  auto dag = softmax({64, 128});
  State state = row_candidate(*dag);
  // expval is read by expsum and softmax: in a row buffer at the row, not inlined into both.
  const StageState& expval = state.stage(state.stage_index("expval"));
  EXPECT_EQ(expval.location, ComputeLocation::kAttached);
  EXPECT_EQ(expval.attach_stage, "softmax");
  auto func = lower(state, "softmax_rows");
  ASSERT_TRUE(func.ok()) << func.error().message;
  EXPECT_EQ(count(to_string(*func), "exp("), 1u) << to_string(*func);
  // The two reductions accumulate 16 lanes along the contiguous row, then reduce horizontally.
  for (const char* partial : {"maxval.rf", "expsum.rf"}) {
    const StageState& rf = state.stage(state.stage_index(partial));
    ASSERT_FALSE(rf.loops.empty()) << partial;
    EXPECT_EQ(rf.loops.back().name, "rf");
    EXPECT_EQ(rf.loops.back().extent, 16);
    EXPECT_EQ(rf.loops.back().annotation, Annotation::kVectorize);
    EXPECT_EQ(rf.location, ComputeLocation::kAttached);
  }
  const StageState& out = state.stage(state.stage_index("softmax"));
  EXPECT_EQ(out.loops.front().annotation, Annotation::kParallel);
  EXPECT_EQ(out.loops.back().annotation, Annotation::kVectorize);
}

TEST(Sketch, LayerNormRowSketchKeepsStatisticsPerRow) {
  auto dag = layer_norm({8, 768});
  State state = row_candidate(*dag);
  for (const char* stage : {"mean", "var", "mean.rf", "var.rf"}) {
    const StageState& s = state.stage(state.stage_index(stage));
    EXPECT_EQ(s.location, ComputeLocation::kAttached) << stage;
    // One row at a time: a buffer of one value per row (16 partial lanes for the .rf stages).
    int64_t size = 1;
    for (int64_t d : s.buffer_shape) size *= d;
    EXPECT_EQ(size, std::string(stage).find(".rf") != std::string::npos ? 16 : 1) << stage;
  }
}

TEST(Sketch, WrongKnobCountIsRejectedWithAReason) {
  auto dag = matmul(16, 16, 16);
  auto sketches = generate_sketches(*dag);
  auto state = apply_candidate(*dag, sketches[0], {0});
  ASSERT_FALSE(state.ok());
  EXPECT_NE(state.error().message.find("has 5 knobs, the candidate gives 1"), std::string::npos);
}

}  // namespace
