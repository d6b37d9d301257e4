// LLVM backend behaviour beyond op coverage: the hand-scheduled matmul at awkward shapes and
// thread counts, the vector IR it emits (contiguous loads vs gathers, FMA contraction),
// errors returned as values, the bound on machine-scheduling regions, and compile time by phase.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "jit_test_util.h"
#include "runtime/default_schedule.h"
#include "runtime/kernel.h"
#include "runtime/parallel_runtime.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

TEST(JitBackend, HandScheduledMatmulAtNonDividingShapes) {
  for (auto [m, n, k] : {std::tuple{64, 48, 40}, {13, 100, 7}, {1, 16, 1}, {9, 33, 130}}) {
    auto dag = matmul(m, n, k);
    ASSERT_TRUE(dag.ok());
    EXPECT_TRUE(MatchesReference(*dag, matmul_hand_schedule(m, n, k)));
  }
}

TEST(JitBackend, ParallelLoopsAgreeAcrossThreadCounts) {
  auto dag = matmul(96, 64, 50);
  ASSERT_TRUE(dag.ok());
  for (int threads : {1, 2, 3}) {
    runtime::set_num_threads(threads);
    EXPECT_TRUE(MatchesReference(*dag, matmul_hand_schedule(96, 64, 50))) << threads << " threads";
  }
  runtime::set_num_threads(1);
}

std::string optimized_ir(const ComputeDAG& dag, const std::vector<Step>& steps) {
  State state(dag);
  EXPECT_TRUE(state.apply_all(steps).ok());
  auto func = lower(state, "kernel");
  runtime::CompileOptions options;
  options.keep_llvm_ir = true;
  auto kernel = runtime::compile_cpu(*func, options);
  EXPECT_TRUE(kernel.ok()) << kernel.error().message;
  return kernel.ok() ? kernel->llvm_ir() : "";
}

TEST(JitBackend, ContiguousVectorLoopUsesVectorLoadsAndContractibleMath) {
  auto dag = matmul(32, 32, 32);
  std::string ir = optimized_ir(*dag, matmul_hand_schedule(32, 32, 32));
  EXPECT_NE(ir.find("load <16 x float>"), std::string::npos);
  EXPECT_NE(ir.find("store <16 x float>"), std::string::npos);
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos);
  EXPECT_NE(ir.find("contract"), std::string::npos);
  EXPECT_NE(ir.find("prefer-vector-width\"=\"512\""), std::string::npos);
}

TEST(JitBackend, StridedVectorLoadBecomesGather) {
  // B is [N, K] when transposed: consecutive j are K floats apart.
  auto dag = matmul(8, 16, 12, false, true);
  std::vector<Step> steps{ReorderStep{"C", {"i", "r0", "j"}}, AnnotateStep{"C", "j", "vectorize"}};
  std::string ir = optimized_ir(*dag, steps);
  EXPECT_NE(ir.find("masked.gather"), std::string::npos);
  EXPECT_TRUE(MatchesReference(*dag, steps));
}

TEST(JitBackend, SmallStrideVectorLoadIsDeinterleavedNotGathered) {
  // A depthwise convolution at strides 2-4, vectorized along its output width with the zero
  // padding inlined: every input read is `stride` floats apart and masked at the image edge,
  // and the width (17 or more outputs in tiles of 16) leaves a ragged, masked last tile.
  for (int64_t stride : {2, 3, 4}) {
    Conv2dParams p{1, 4, 9, 16 * stride + 1, 4, 3, 3};
    p.groups = 4;
    p.stride_h = p.stride_w = stride;
    p.pad_h = p.pad_w = 1;
    auto dag = conv2d(p);
    ASSERT_TRUE(dag.ok()) << dag.error().message;
    std::vector<Step> steps{ComputeInlineStep{"pad"}, SplitStep{"conv", "w", {16}},
                            ReorderStep{"conv", {"n", "c", "h", "w.0", "r0", "r1", "r2", "w.1"}},
                            AnnotateStep{"conv", "w.1", "vectorize"}};
    const std::string ir = optimized_ir(*dag, steps);
    EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << "stride " << stride;
    EXPECT_NE(ir.find("shufflevector"), std::string::npos) << "stride " << stride;
    EXPECT_TRUE(MatchesReference(*dag, steps)) << "stride " << stride;
  }
}

// A 3x3 convolution in NHWC, `channels` in and out in `groups` groups, padded by 1 on each side.
Result<ComputeDAG> padded_nhwc_conv3x3(int64_t channels, int64_t height, int64_t width, int64_t groups) {
  Conv2dParams p{1, channels, height, width, channels, 3, 3};
  p.groups = groups;
  p.pad_h = p.pad_w = 1;
  p.layout = Layout::kNHWC;
  return conv2d(p);
}

// A grouped convolution in NHWC vectorized along its output channels reads input channel
// (k / 4) * 4 + rc: not evenly spaced, but every lane inside one vector's window of the input's
// channels. That read is one masked window load and a permutation (Emitter::load_window), not a
// gather. 40 channels in vectors of 16 leave a ragged, masked last vector, and the inlined
// padding masks the lanes at the image edge.
TEST(JitBackend, GroupedChannelsLastReadIsAPermutedWindowNotAGather) {
  auto dag = padded_nhwc_conv3x3(40, 6, 5, 10);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  State state(*dag);
  const TensorNode& conv = *state.stage(state.stage_index("conv")).op;
  ASSERT_EQ(conv.axes.size(), 4u);
  ASSERT_EQ(conv.reduce_axes.size(), 3u);
  const std::string channel = conv.axes[3].name;
  std::vector<std::string> order{conv.axes[0].name, conv.axes[1].name, conv.axes[2].name, channel + ".0"};
  for (const Axis& r : conv.reduce_axes) order.push_back(r.name);
  order.push_back(channel + ".1");
  std::vector<Step> steps{ComputeInlineStep{"pad"}, SplitStep{"conv", channel, {16}}, ReorderStep{"conv", order},
                          AnnotateStep{"conv", channel + ".1", "vectorize"}};
  const std::string ir = optimized_ir(*dag, steps);
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos);
  EXPECT_NE(ir.find("shufflevector"), std::string::npos);
  EXPECT_TRUE(MatchesReference(*dag, steps));
}

// Padding skips (schedule/padding_skip.h) compiled: a padded conv whose tap loops sit outside
// its vector tile, in both layouts, the pad stage a buffer or inlined, equals the reference.
// Bug caught: a skip that dropped a block holding a real tap (a border pixel's sum short by
// that tap), or one the later passes moved off its block.
TEST(JitBackend, ConvSkippingItsPaddingTapsMatchesTheReference) {
  for (Layout layout : {Layout::kNHWC, Layout::kNCHW}) {
    for (bool inline_pad : {false, true}) {
      Conv2dParams p{1, 64, 7, 6, 16, 3, 3};
      p.pad_h = p.pad_w = 1;
      p.layout = layout;
      auto dag = conv2d(p);
      ASSERT_TRUE(dag.ok()) << dag.error().message;
      State state(*dag);
      const TensorNode& conv = *state.stage(state.stage_index("conv")).op;
      const bool nhwc = layout == Layout::kNHWC;
      const std::string k = conv.axes[nhwc ? 3 : 1].name, oh = conv.axes[nhwc ? 1 : 2].name,
                        ow = conv.axes[nhwc ? 2 : 3].name;
      // Taps (kh, kw) outside the input channels: NHWC lists its reduce axes so, NCHW as (c, kh, kw).
      const auto& r = conv.reduce_axes;
      std::vector<std::string> order{conv.axes[0].name, oh, ow};
      for (int i : nhwc ? std::vector<int>{0, 1, 2} : std::vector<int>{1, 2, 0}) order.push_back(r[i].name);
      order.push_back(k);
      std::vector<Step> steps{ReorderStep{"conv", order}, AnnotateStep{"conv", k, "vectorize"}};
      if (inline_pad) steps.insert(steps.begin(), ComputeInlineStep{"pad"});
      State scheduled(*dag);
      ASSERT_TRUE(scheduled.apply_all(steps));
      auto func = lower(scheduled, "kernel");
      ASSERT_TRUE(func) << func.error().message;
      int skips = 0;
      visit(func->body, [&](const StmtNode& n) { skips += n.kind == StmtKind::kIfThenElse && n.skips_padding; });
      EXPECT_GT(skips, 0) << to_string(*func);
      EXPECT_TRUE(MatchesReference(*dag, steps));
    }
  }
}

// Inlined padding unswitched (schedule/padding_skip.h) in the packed conv's defaults, its
// register tile a row of columns that holds the border at the first tile: strides 1 and 2,
// padding 1 and 2, equal the reference, and the plain read is there beside the select.
// The defaults are sized for a named core, not this one: on AVX-512 (28 accumulators) a whole
// 13-wide row is one tile; on AVX2 (8 accumulators) a 13-wide row has no divisor between 1 and
// 13, and its 1-pixel tile no plain block, so AVX2 gets a 14-wide map.
// Bug caught: an unswitch test that passes a block reading the border (a plain read of a
// neighbouring row's pixel, or out of the buffer, instead of zero), or none at all.
TEST(JitBackend, PackedConvWithInlinedPaddingMatchesTheReference) {
  struct Core {
    runtime::CoreShape shape;
    int64_t width;
  };
  for (const Core& core : {Core{{16, int64_t{1} << 20}, 13}, Core{{8, int64_t{512} << 10}, 14}}) {
    for (int64_t stride : {1, 2}) {
      for (int64_t pad : {1, 2}) {
        SCOPED_TRACE("register floats " + std::to_string(core.shape.register_floats));
        Conv2dParams p{1, 32, 11, core.width, 32, 3, 3};
        p.stride_h = p.stride_w = stride;
        p.pad_h = p.pad_w = pad;
        p.layout = Layout::kNHWC;
        auto dag = conv2d_bias_relu(p);
        ASSERT_TRUE(dag.ok()) << dag.error().message;
        const auto choices = runtime::default_schedules(*dag, core.shape);
        auto packed = std::find_if(choices.begin(), choices.end(),
                                   [](const runtime::ScheduleChoice& c) { return c.sketch == "conv:packed:tile_fuse(Y)"; });
        ASSERT_NE(packed, choices.end());
        nlohmann::json knobs = packed->knobs;
        knobs["conv.producers_at_root"] = 0;
        const auto sketches = generate_sketches(*dag);
        auto sketch = std::find_if(sketches.begin(), sketches.end(), [&](const Sketch& s) { return s.id == packed->sketch; });
        ASSERT_NE(sketch, sketches.end());
        auto values = sketch->knobs.from_json(knobs);
        ASSERT_TRUE(values) << values.error().message;
        const std::vector<Step> steps = sketch->steps(*values);
        State state(*dag);
        ASSERT_TRUE(state.apply_all(steps));
        auto func = lower(state, "kernel");
        ASSERT_TRUE(func) << func.error().message;
        int plain = 0, selected = 0;
        visit(func->body, [&](const StmtNode& n) {
          if (n.kind != StmtKind::kStore || n.buffer != "conv") return;
          const std::string value = to_string(n.value);
          plain += value.find("X[") != std::string::npos && value.find("select") == std::string::npos;
          selected += value.find("select") != std::string::npos;
        });
        EXPECT_GT(plain, 0) << "stride " << stride << " pad " << pad;
        EXPECT_GT(selected, 0) << "stride " << stride << " pad " << pad;
        EXPECT_TRUE(MatchesReference(*dag, steps)) << "stride " << stride << " pad " << pad;
      }
    }
  }
}

// The default schedule of a stride-2 max pool 56 outputs wide (ResNet-50's, channels cut)
// vectorizes by whole power-of-two vectors, so its window reads are deinterleaved; at 14 lanes
// (the largest divisor up to 16) every tap was a masked gather, 0.78 ms for ResNet-50's pool.
TEST(JitBackend, DefaultPoolScheduleDeinterleavesItsStridedWindow) {
  Pool2dParams p;
  p.channels = 2, p.height = 6, p.width = 112;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = 2;
  p.pad_h = p.pad_w = 1;
  auto dag = max_pool2d(p);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  const auto choices = runtime::default_schedules(*dag);
  ASSERT_FALSE(choices.empty());
  const std::string ir = optimized_ir(*dag, choices.front().steps);
  EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << choices.front().knobs.dump();
  EXPECT_TRUE(MatchesReference(*dag, choices.front().steps));
}

// A packed convolution keeps its register tile as [pixels][16 output channels] and copies it
// out vectorized along the pixels (copy_along_vector 0), a read 16 floats apart per lane. From
// the stack tile that read is one scalar load per lane (Emitter::load_lanes), not a gather:
// a gather kept ResNet-50's 7x7 stem at 76 GFLOP/s with a 16-pixel tile (106 with lane loads,
// AMD EPYC Zen 4, conv_probe). Power-of-two and odd widths (16 and 7 pixels) both.
TEST(JitBackend, PackedConvCopiesItsTileOutWithoutGathers) {
  for (int64_t out_w : {16, 7}) {
    Conv2dParams p{1, 3, 2 * out_w, 2 * out_w, 32, 7, 7};
    p.stride_h = p.stride_w = 2;
    p.pad_h = p.pad_w = 3;
    auto dag = conv2d_bias_relu(p);
    ASSERT_TRUE(dag.ok()) << dag.error().message;
    std::vector<Step> steps;
    for (const Sketch& sketch : generate_sketches(*dag)) {
      if (sketch.id != "conv:packed:tile_fuse(Y)") continue;
      auto values = sketch.knobs.from_json(nlohmann::json::parse(
          R"({"conv.c":[2,1,1,16],"conv.copy_along_vector":0,"conv.h":[)" + std::to_string(out_w) +
          R"(,1,1,1],"conv.w":[1,1,1,)" + std::to_string(out_w) +
          R"(],"conv.n":[1,1,1,1],"conv.parallel":1,"conv.producers_at_root":1,"conv.r0":[1,3],)"
          R"("conv.r1":[7,1],"conv.r2":[7,1],"conv.unroll":512})"));
      ASSERT_TRUE(values.ok()) << values.error().message;
      steps = sketch.materialize(sketch.knobs, *values);
    }
    ASSERT_FALSE(steps.empty()) << "no packed sketch";
    const std::string ir = optimized_ir(*dag, steps);
    EXPECT_EQ(ir.find("masked.gather"), std::string::npos) << out_w << " pixels";
    EXPECT_TRUE(MatchesReference(*dag, steps)) << out_w << " pixels";
  }
}

TEST(JitBackend, RunRejectsBadBuffers) {
  auto dag = elementwise(Elementwise::kRelu, {4, 4});
  auto func = lower(State(*dag), "relu");
  auto kernel = runtime::compile_cpu(*func);
  ASSERT_TRUE(kernel.ok());
  runtime::AlignedBuffer x(16), y(16);
  auto wrong_count = kernel->run({x.data()});
  ASSERT_FALSE(wrong_count.ok());
  EXPECT_NE(wrong_count.error().message.find("takes 2 buffers"), std::string::npos);
  auto misaligned = kernel->run({x.data() + 1, y.data()});
  ASSERT_FALSE(misaligned.ok());
  EXPECT_NE(misaligned.error().message.find("64-byte aligned"), std::string::npos);
  EXPECT_TRUE(kernel->run({x.data(), y.data()}).ok());
}

TEST(JitBackend, UnsupportedLoopKindIsAnErrorValue) {
  auto dag = elementwise(Elementwise::kRelu, {4, 4});
  auto func = lower(State(*dag), "relu");
  ASSERT_TRUE(func.ok());
  LoweredFunc gpu = *func;
  const StmtNode& outer = *gpu.body;
  ASSERT_EQ(outer.kind, StmtKind::kFor);
  gpu.body = make_for(outer.loop_var, outer.extent, ForKind::kGpuBlock, outer.body);
  auto kernel = runtime::compile_cpu(gpu);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.error().message.find("GPU axis"), std::string::npos);
}

TEST(JitBackend, SelectGuardsOutOfBoundsReadsInVectorLoops) {
  // The pad stage reads X only where the select's condition holds; vectorized over w, the read
  // must be masked, or lanes at the border would read outside X.
  Conv2dParams p{1, 2, 5, 16, 2, 3, 3};
  p.pad_h = p.pad_w = 1;
  auto dag = conv2d(p);
  ASSERT_TRUE(dag.ok());
  std::vector<Step> steps{SplitStep{"pad", "w", {6}}, AnnotateStep{"pad", "w.1", "vectorize"}};
  EXPECT_TRUE(MatchesReference(*dag, steps));
}

// A depthwise conv in NHWC, padding inlined, vectorized over its channels, its taps unrolled:
// at the image's border a tap's read is masked off whole. On rows of 2048 x 64 floats (512 KiB,
// past the buffers' read margin, runtime/memory.h) the top and bottom rows' taps would point a
// row outside the input, so they point at its start instead (a select on their guard); the
// middle row's taps, a pixel outside at most, keep their plain addresses, and on a small image
// no read needs a select. Bugs caught: no select (each masked-off read outside the memory a
// kernel touches cost hundreds of cycles on a Zen 5), a select on reads the margin covers (2-3x
// on unrolled tiles, in spilled addresses), and a select that reads the wrong element (the
// reference check).
TEST(JitBackend, MaskedOffReadsBeyondTheMarginPointInsideTheirBuffer) {
  for (int64_t width : {5, 2048}) {
    const int64_t channels = width > 5 ? 64 : 32;
    auto dag = padded_nhwc_conv3x3(channels, 3, width, channels);
    ASSERT_TRUE(dag.ok()) << dag.error().message;
    State state(*dag);
    const TensorNode& conv = *state.stage(state.stage_index("conv")).op;
    std::vector<std::string> order{conv.axes[0].name, conv.axes[1].name, conv.axes[2].name};
    for (const Axis& r : conv.reduce_axes) order.push_back(r.name);
    order.push_back(conv.axes[3].name);
    std::vector<Step> steps{ComputeInlineStep{"pad"}, ReorderStep{"conv", order},
                            AnnotateStep{"conv", conv.reduce_axes[0].name, "unroll"},
                            AnnotateStep{"conv", conv.reduce_axes[1].name, "unroll"},
                            AnnotateStep{"conv", conv.axes[3].name, "vectorize"}};
    auto applied = state.apply_all(steps);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
    auto func = lower(state, "kernel");
    ASSERT_TRUE(func) << func.error().message;
    runtime::CompileOptions options;
    options.opt_level = 0;  // the IR as emitted
    options.keep_llvm_ir = true;
    auto kernel = runtime::compile_cpu(*func, options);
    ASSERT_TRUE(kernel.ok()) << kernel.error().message;
    int reads = 0, selects = 0;  // masked vector reads; selects between two addresses
    std::istringstream lines(kernel->llvm_ir());
    for (std::string line; std::getline(lines, line);) {
      reads += line.find("@llvm.masked.load") != std::string::npos && line.find("call ") != std::string::npos;
      selects += line.find("= select i1 ") != std::string::npos && line.find(", ptr ") != std::string::npos;
    }
    EXPECT_EQ(reads, 9) << width;
    EXPECT_EQ(selects, width > 5 ? 6 : 0) << width;
    EXPECT_TRUE(MatchesReference(*dag, steps)) << width;
  }
}

TEST(JitBackend, MachineSchedulingRegionsAreBounded) {
  // Fails if LLVM renames the option (0: the bound would silently stop applying) or if
  // initializing LLVM no longer sets it: huge unrolled candidates would again compile for seconds.
  EXPECT_EQ(runtime::scheduling_region_bound(), runtime::kHugeSchedulingRegion);
}

TEST(JitBackend, CompileTimeIsSplitIntoItsTwoPhases) {
  // Fails if a phase is not timed (0), or is timed over a span that includes the other or the
  // IR's emission outside them (the two would add up to more than the whole).
  auto dag = matmul(64, 64, 64);
  State state(*dag);
  ASSERT_TRUE(state.apply_all(matmul_hand_schedule(64, 64, 64)).ok());
  auto func = lower(state, "kernel");
  ASSERT_TRUE(func.ok());
  auto object = runtime::compile_object(*func);
  ASSERT_TRUE(object.ok()) << object.error().message;
  EXPECT_GT(object->optimize_ms, 0);
  EXPECT_GT(object->codegen_ms, 0);
  EXPECT_LT(object->optimize_ms + object->codegen_ms, object->compile_ms);
}

}  // namespace
}  // namespace tessera::testing
