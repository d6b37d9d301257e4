// Refused schedule steps, table-driven: each row applies setup steps that must succeed, then one
// step that must be refused with a message containing the row's fragment (text from
// schedule/steps.cc); a refusal leaves the State exactly as it was, and apply_all names the step.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "schedule/ops.h"
#include "schedule/state.h"
#include "schedule/steps.h"

namespace {

using namespace tessera::schedule;
using tessera::Result;

struct RejectCase {
  std::string name;
  std::function<Result<ComputeDAG>()> dag;
  std::vector<Step> setup;
  Step refused;
  std::string fragment;
};

Result<ComputeDAG> mm64() { return matmul(64, 64, 64); }
Result<ComputeDAG> softmax_4x8() { return softmax({4, 8}); }
Result<ComputeDAG> dense_4x8() { return dense_bias(4, 8, 6); }
Result<ComputeDAG> softmax_4x37() { return softmax({4, 37}); }
Result<ComputeDAG> conv_small() {
  Conv2dParams p{1, 2, 6, 6, 2, 3, 3};
  p.pad_h = p.pad_w = 1;
  return conv2d(p);
}

std::vector<RejectCase> cases() {
  return {
      // Annotations.
      {"VectorizeReduction", mm64, {}, AnnotateStep{"C", "r0", "vectorize"},
       "cannot vectorize reduction loop 'r0' of stage 'C'"},
      {"ParallelizeReduction", mm64, {}, AnnotateStep{"C", "r0", "parallel"},
       "cannot parallelize reduction loop 'r0' of stage 'C'"},
      {"VectorizeTooManyLanes", [] { return matmul(64, 128, 64); }, {},
       AnnotateStep{"C", "j", "vectorize"},
       "cannot vectorize loop 'j' of stage 'C' of extent 128 (at most 64 lanes"},
      {"VectorizeSplitPartTooLong", [] { return matmul(64, 256, 64); },
       {SplitStep{"C", "j", {128}}}, AnnotateStep{"C", "j.1", "vectorize"},
       "cannot vectorize loop 'j.1' of stage 'C' of extent 128"},
      {"UnrollTooLong", [] { return matmul(1024, 8, 8); }, {}, AnnotateStep{"C", "i", "unroll"},
       "cannot unroll loop 'i' of stage 'C' of extent 1024 (at most 512; split it first)"},
      {"AnnotateTwice", mm64, {AnnotateStep{"C", "i", "parallel"}},
       AnnotateStep{"C", "i", "unroll"}, "loop 'i' of stage 'C' is already marked parallel"},
      {"UnknownAnnotation", mm64, {}, AnnotateStep{"C", "i", "simd"},
       "unknown annotation 'simd' (expected parallel, vectorize or unroll)"},
      // Reorder.
      {"ReorderLoopOfAnotherStage", softmax_4x8, {}, ReorderStep{"maxval", {"i", "j"}},
       "loop 'j' belongs to stage 'expval', not 'maxval'"},
      {"ReorderMissingLoop", mm64, {}, ReorderStep{"C", {"j", "i"}},
       "reorder of stage 'C' leaves out loops: r0"},
      {"ReorderLoopTwice", mm64, {}, ReorderStep{"C", {"i", "i", "j"}},
       "reorder names loop 'i' twice"},
      {"ReorderReplacedLoop", mm64, {SplitStep{"C", "i", {8}}}, ReorderStep{"C", {"i", "j", "r0"}},
       "stage 'C' has no loop 'i' (loops: i.0, i.1, j, r0)"},
      // Split.
      {"SplitProductPastExtent", mm64, {}, SplitStep{"C", "i", {8, 16}},
       "split factors of loop 'i' multiply past its extent 64"},
      {"SplitZeroFactor", mm64, {}, SplitStep{"C", "i", {0}},
       "split factor 0 of loop 'i' is not positive"},
      {"SplitNegativeFactor", mm64, {}, SplitStep{"C", "i", {4, -2}},
       "split factor -2 of loop 'i' is not positive"},
      // 2 * INT64_MAX must not wrap around to a "small" product (records come from JSON).
      {"SplitFactorsOverflow", mm64, {},
       SplitStep{"C", "i", {2, std::numeric_limits<int64_t>::max()}},
       "split factors of loop 'i' multiply past its extent 64"},
      {"SplitNoFactors", mm64, {}, SplitStep{"C", "i", {}},
       "split of 'i' needs at least one factor"},
      {"SplitAnnotatedLoop", mm64, {AnnotateStep{"C", "i", "parallel"}},
       SplitStep{"C", "i", {8}}, "loop 'i' is already marked parallel; split it before annotating"},
      // Fuse.
      {"FuseNonAdjacent", mm64, {}, FuseStep{"C", {"i", "r0"}},
       "fuse needs adjacent loops, outer to inner; 'i' is not directly outside 'r0'"},
      {"FuseInnerToOuter", mm64, {}, FuseStep{"C", {"j", "i"}}, "'j' is not directly outside 'i'"},
      {"FuseSpatialWithReduction", mm64, {}, FuseStep{"C", {"j", "r0"}},
       "cannot fuse spatial and reduction loops ('j' with 'r0')"},
      {"FuseOneLoop", mm64, {}, FuseStep{"C", {"i"}}, "fuse needs at least two loops"},
      {"FuseAnnotatedLoop", mm64, {AnnotateStep{"C", "j", "vectorize"}}, FuseStep{"C", {"i", "j"}},
       "loop 'j' is already marked vectorize; fuse before annotating"},
      // Names.
      {"UnknownStage", mm64, {}, SplitStep{"D", "i", {8}}, "no stage named 'D' (stages: C)"},
      {"UnknownLoop", mm64, {}, SplitStep{"C", "x", {8}},
       "stage 'C' has no loop 'x' (loops: i, j, r0)"},
      {"InputStageHasNoLoops", mm64, {}, SplitStep{"A", "i", {8}},
       "stage 'A' is an input; it has no loops"},
      {"InlinedStageHasNoLoops", softmax_4x8, {ComputeInlineStep{"expval"}},
       SplitStep{"expval", "j", {2}},
       "stage 'expval' is inlined into its consumers; it has no loops"},
      // compute_inline.
      {"InlineReduction", softmax_4x8, {}, ComputeInlineStep{"maxval"},
       "cannot inline stage 'maxval': it is a reduction"},
      {"InlineOutput", softmax_4x8, {}, ComputeInlineStep{"softmax"},
       "cannot inline stage 'softmax': it is an output of the DAG"},
      {"InlineTransformedStage", softmax_4x8, {SplitStep{"expval", "j", {2}}},
       ComputeInlineStep{"expval"},
       "cannot inline stage 'expval': its loops were already transformed"},
      {"InlineAnnotatedStage", softmax_4x8, {AnnotateStep{"expval", "j", "vectorize"}},
       ComputeInlineStep{"expval"}, "its loops were already transformed"},
      {"InlineTwice", softmax_4x8, {ComputeInlineStep{"expval"}}, ComputeInlineStep{"expval"},
       "stage 'expval' is inlined into its consumers"},
      // auto_unroll.
      {"AutoUnrollTooLarge", mm64, {}, AutoUnrollStep{"C", 5000},
       "auto_unroll_max_step 5000 is out of range [0, 4096]"},
      {"AutoUnrollNegative", mm64, {}, AutoUnrollStep{"C", -1},
       "auto_unroll_max_step -1 is out of range [0, 4096]"},
      // compute_at and compute_root.
      {"ComputeAtOutput", dense_4x8, {}, ComputeAtStep{"Y", "dense", "i"},
       "cannot compute_at stage 'Y': it is an output of the DAG"},
      {"ComputeAtNonReader", softmax_4x8, {}, ComputeAtStep{"expval", "maxval", "i"},
       "stage 'expsum' reads 'expval' outside loop 'i' of 'maxval'"},
      {"ComputeAtWithAnotherReader", softmax_4x8, {}, ComputeAtStep{"expval", "expsum", "i"},
       "stage 'softmax' reads 'expval' outside loop 'i' of 'expsum'"},
      {"ComputeAtTransformedStage", dense_4x8, {SplitStep{"dense", "j", {2}}},
       ComputeAtStep{"dense", "Y", "i"},
       "cannot compute_at stage 'dense': the loops of stage 'dense' were already transformed"},
      {"ComputeAtTwice", dense_4x8, {ComputeAtStep{"dense", "Y", "i"}},
       ComputeAtStep{"dense", "Y", "j"}, "cannot compute_at stage 'dense': it is already computed at Y.i"},
      {"ComputeAtUnknownLoop", dense_4x8, {}, ComputeAtStep{"dense", "Y", "k"},
       "stage 'Y' has no loop 'k' (loops: i, j)"},
      {"SplitTargetAfterComputeAt", dense_4x8, {ComputeAtStep{"dense", "Y", "i"}},
       SplitStep{"Y", "j", {2}},
       "cannot split stage 'Y': stage 'dense' is computed at its loop 'i'; split before compute_at"},
      {"ReorderTargetAfterComputeAt", dense_4x8, {ComputeAtStep{"dense", "Y", "i"}},
       ReorderStep{"Y", {"j", "i"}}, "cannot reorder stage 'Y': stage 'dense' is computed at"},
      {"InlineAttachedStage", conv_small, {ComputeAtStep{"pad", "conv", "h"}},
       ComputeInlineStep{"pad"},
       "cannot inline stage 'pad': it is computed at conv.h (compute_root it first)"},
      // Found by the fuzzer: expsum at root would read expval outside the loop it lives in.
      {"ComputeRootReaderOfAttachedStage", softmax_4x37,
       {SplitStep{"softmax", "j", {14}}, ComputeAtStep{"expsum", "softmax", "j.0"},
        ComputeAtStep{"expval", "softmax", "i"}},
       ComputeRootStep{"expsum"},
       "cannot compute_root stage 'expsum': it reads 'expval', which is computed at softmax.i"},
      {"ComputeRootAtRoot", dense_4x8, {}, ComputeRootStep{"dense"},
       "stage 'dense' is already computed at root"},
      // cache_write, cache_read, rfactor.
      {"CacheWriteUnknownScope", mm64, {}, CacheWriteStep{"C", "texture"},
       "unknown storage scope 'texture' (expected local, shared or global)"},
      {"CacheWriteTransformedStage", mm64, {SplitStep{"C", "i", {8}}}, CacheWriteStep{"C", "local"},
       "cannot cache_write: the loops of stage 'C' were already transformed"},
      {"CacheWriteAttachedStage", dense_4x8, {ComputeAtStep{"dense", "Y", "i"}},
       CacheWriteStep{"dense", "local"},
       "cannot cache_write stage 'dense': it is computed at Y.i (compute_root it first)"},
      {"CacheReadForANonReader", mm64, {}, CacheReadStep{"A", "A", "local"},
       "stage 'A' is an input; it has no loops"},
      {"CacheReadOfAnAttachedStage", dense_4x8, {ComputeAtStep{"dense", "Y", "i"}},
       CacheReadStep{"dense", "Y", "local"},
       "cannot cache_read stage 'dense': it is computed at Y.i; cache_read before compute_at"},
      {"CacheReadNotRead", dense_4x8, {}, CacheReadStep{"X", "Y", "local"},
       "cannot cache_read stage 'X' for 'Y': 'Y' does not read it"},
      {"RFactorSpatialLoop", mm64, {}, RFactorStep{"C", "i"},
       "cannot rfactor stage 'C' at 'i': it is not a reduction loop"},
      {"RFactorNonReduction", dense_4x8, {}, RFactorStep{"Y", "i"},
       "cannot rfactor stage 'Y': it is not a reduction"},
      {"RFactorAfterSpatialSplit", mm64, {SplitStep{"C", "i", {8}}}, RFactorStep{"C", "r0"},
       "cannot rfactor stage 'C': its spatial loop 'i' was already transformed"},
      {"RFactorAnnotated", mm64, {AnnotateStep{"C", "i", "parallel"}}, RFactorStep{"C", "r0"},
       "cannot rfactor stage 'C': its spatial loop 'i' was already transformed"},
      // Layouts: every dimension once, whole or as both halves of one block size.
      {"LayoutOfAnOutput", dense_4x8, {}, LayoutStep{"Y", {"1", "0"}},
       "cannot change the layout of stage 'Y': it is an output of the DAG"},
      {"LayoutOfAnInput", dense_4x8, {}, LayoutStep{"W", {"1", "0"}}, "stage 'W' is an input"},
      {"LayoutDimensionOutOfRange", dense_4x8, {}, LayoutStep{"dense", {"0", "2"}},
       "layout entry '2': expected a dimension in [0, 2)"},
      {"LayoutDimensionTwice", dense_4x8, {}, LayoutStep{"dense", {"0", "0"}},
       "layout must use dimension 0 once"},
      {"LayoutDimensionMissing", dense_4x8, {}, LayoutStep{"dense", {"1"}},
       "layout must use dimension 0 once"},
      {"LayoutHalfABlock", dense_4x8, {}, LayoutStep{"dense", {"0/4", "1"}},
       "layout must use dimension 0 once"},
      {"LayoutTwoBlockSizes", dense_4x8, {}, LayoutStep{"dense", {"0/4", "1", "0%2"}},
       "dimension 0 is blocked by 4 elsewhere"},
      {"LayoutBlockOfOne", dense_4x8, {}, LayoutStep{"dense", {"0/1", "1", "0%1"}},
       "the block must be an integer of at least 2"},
      {"LayoutNotANumber", dense_4x8, {}, LayoutStep{"dense", {"i", "j"}},
       "layout entry 'i': expected a dimension"},
      // Packing: at root, from constants only.
      {"PackReadsAVariableInput", dense_4x8, {CacheReadStep{"X", "dense", "global"}},
       PackStep{"X.local"}, "cannot pack stage 'X.local': it reads 'X', which is not a constant input"},
      {"PackAStageThatReadsActivations", dense_4x8, {}, PackStep{"dense"},
       "cannot pack stage 'dense': it reads 'X', which is not a constant input"},
      {"PackAnAttachedStage", dense_4x8,
       {CacheReadStep{"W", "dense", "global"}, ComputeAtStep{"W.local", "dense", "i"}},
       PackStep{"W.local"}, "cannot pack stage 'W.local': it is computed at dense.i"},
      {"PackTwice", dense_4x8, {CacheReadStep{"W", "dense", "global"}, PackStep{"W.local"}},
       PackStep{"W.local"}, "cannot pack stage 'W.local': it is already packed"},
      {"ComputeAtAPackedStage", dense_4x8, {CacheReadStep{"W", "dense", "global"}, PackStep{"W.local"}},
       ComputeAtStep{"W.local", "dense", "i"}, "cannot compute_at stage 'W.local': it is packed at load"},
      {"RedirectAPackedStage", dense_4x8, {CacheReadStep{"W", "dense", "global"}, PackStep{"W.local"}},
       CacheReadStep{"W", "W.local", "local"},
       "stage 'W.local' is packed at load and would then read 'W.local_1', which is computed in every call"},
      {"PackAnOutput", dense_4x8, {}, PackStep{"Y"}, "cannot pack stage 'Y': it is an output of the DAG"},
      // GPU bindings (bind): spatial loops only, each dimension once, within CUDA's limits.
      {"BindUnknownDimension", mm64, {}, BindStep{"C", "i", "threadIdx.w"},
       "unknown GPU binding 'threadIdx.w'"},
      {"BindReductionToThreads", mm64, {}, BindStep{"C", "r0", "threadIdx.x"},
       "cannot bind loop 'r0' of stage 'C' to threadIdx.x: it is a reduction loop, and its threads "
       "would accumulate into the same output without a cross-thread reduction"},
      {"BindReductionToBlocks", mm64, {}, BindStep{"C", "r0", "blockIdx.x"},
       "its blocks would accumulate into the same output"},
      {"BindTooManyThreads", mm64, {BindStep{"C", "i", "threadIdx.y"}}, BindStep{"C", "j", "threadIdx.x"},
       "the stage would run 4096 threads per block, more than 1024 (split it first)"},
      {"BindDimensionTwice", mm64, {SplitStep{"C", "i", {8}}, BindStep{"C", "i.0", "blockIdx.x"}},
       BindStep{"C", "i.1", "blockIdx.x"}, "loop 'i.0' is already bound to it"},
      {"BindThreadZPastItsLimit", [] { return matmul(128, 4, 4); }, {}, BindStep{"C", "i", "threadIdx.z"},
       "its extent 128 is more than threadIdx.z allows (64)"},
      {"BindAnAnnotatedLoop", mm64, {AnnotateStep{"C", "i", "parallel"}}, BindStep{"C", "i", "blockIdx.x"},
       "cannot bind loop 'i' of stage 'C' to blockIdx.x: it is already marked parallel"},
      {"SplitABoundLoop", mm64, {BindStep{"C", "i", "blockIdx.x"}}, SplitStep{"C", "i", {8}},
       "loop 'i' is already marked blockIdx.x; split it before annotating"},
  };
}

class StepRejectTest : public ::testing::TestWithParam<RejectCase> {};

TEST_P(StepRejectTest, RefusedWithMessageAndStateUnchanged) {
  const RejectCase& c = GetParam();
  auto dag = c.dag();
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  State state(*dag);
  for (const Step& step : c.setup) {
    auto r = state.apply(step);
    ASSERT_TRUE(r.ok()) << "setup step " << describe_step(step) << ": " << r.error().message;
  }
  const std::string before = state.describe();
  const size_t history = state.history().size();

  auto refused = state.apply(c.refused);
  ASSERT_FALSE(refused.ok()) << describe_step(c.refused) << " was accepted";
  const std::string& message = refused.error().message;
  EXPECT_NE(message.find(c.fragment), std::string::npos)
      << "message: " << message << "\nexpected fragment: " << c.fragment;
  EXPECT_EQ(state.describe(), before);
  EXPECT_EQ(state.history().size(), history);

  // apply_all reports the position and description of the refused step, and keeps nothing.
  State fresh(*dag);
  std::vector<Step> all = c.setup;
  all.push_back(c.refused);
  auto r = fresh.apply_all(all);
  ASSERT_FALSE(r.ok());
  const std::string prefix =
      "step " + std::to_string(c.setup.size()) + " (" + describe_step(c.refused) + "): ";
  EXPECT_EQ(r.error().message.rfind(prefix, 0), 0u) << r.error().message;
  EXPECT_NE(r.error().message.find(c.fragment), std::string::npos) << r.error().message;
  EXPECT_TRUE(fresh.history().empty());
}

INSTANTIATE_TEST_SUITE_P(Steps, StepRejectTest, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<RejectCase>& info) {
                           return info.param.name;
                         });

}  // namespace
