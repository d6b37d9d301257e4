// Multi-stage schedules compiled and compared with the reference: compute_at with region
// inference (tiles, halos, clamped borders), cache_write accumulators, cache_read packing,
// rfactor, compute_root, fused epilogues, and padded edge tiles of ceil splits.
#include <gtest/gtest.h>

#include "jit_test_util.h"
#include "runtime/parallel_runtime.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

TEST(JitMultiStage, CacheWriteMatmulAtDividingAndRaggedShapes) {
  for (auto [m, n, k] : {std::tuple{64, 64, 64}, {50, 70, 33}, {13, 100, 7}, {8, 16, 1}}) {
    auto dag = matmul(m, n, k);
    ASSERT_TRUE(dag.ok());
    EXPECT_TRUE(MatchesReference(*dag, matmul_cache_write_schedule(m, n, k)));
  }
}

TEST(JitMultiStage, CacheWriteMatmulWithThreads) {
  auto dag = matmul(96, 80, 40);
  runtime::set_num_threads(2);
  EXPECT_TRUE(MatchesReference(*dag, matmul_cache_write_schedule(96, 80, 40)));
  runtime::set_num_threads(1);
}

TEST(JitMultiStage, PadComputedAtConvolutionTileHasAHalo) {
  Conv2dParams p{1, 3, 10, 9, 4, 3, 3};
  p.pad_h = p.pad_w = 1;
  auto dag = conv2d(p);
  ASSERT_TRUE(dag.ok());
  std::vector<Step> steps{SplitStep{"conv", "h", {4}},  // 10 = 3 tiles of 4, the last ragged
                          ReorderStep{"conv", {"n", "h.0", "c", "h.1", "w", "r0", "r1", "r2"}},
                          ComputeAtStep{"pad", "conv", "h.0"}};
  EXPECT_TRUE(MatchesReference(*dag, steps));
  State state(*dag);
  ASSERT_TRUE(state.apply_all(steps).ok());
  const StageState& pad = state.stage(state.stage_index("pad"));
  // 4 output rows of a 3x3 kernel read 6 padded rows; all channels and columns.
  EXPECT_EQ(pad.buffer_shape, (std::vector<int64_t>{1, 3, 6, 11}));
}

TEST(JitMultiStage, StridedDilatedConvolutionRegion) {
  Conv2dParams p{1, 2, 13, 11, 2, 3, 3};
  p.stride_h = p.stride_w = 2;
  p.dilation_h = 2;
  p.pad_h = p.pad_w = 2;
  auto dag = conv2d(p);
  ASSERT_TRUE(dag.ok());
  EXPECT_TRUE(MatchesReference(*dag, {SplitStep{"conv", "w", {3}},
                                      ComputeAtStep{"pad", "conv", "w.0"},
                                      AnnotateStep{"pad", "w", "vectorize"}}));
}

TEST(JitMultiStage, InlinedPaddingWithVectorizedWidth) {
  Conv2dParams p{1, 4, 8, 16, 4, 3, 3};
  p.pad_h = p.pad_w = 1;
  auto dag = conv2d(p);
  EXPECT_TRUE(MatchesReference(*dag, {ComputeInlineStep{"pad"},
                                      ReorderStep{"conv", {"n", "c", "h", "r0", "r1", "r2", "w"}},
                                      AnnotateStep{"conv", "w", "vectorize"}}));
}

TEST(JitMultiStage, DenseComputedAtItsEpilogue) {
  auto dag = dense_bias(12, 40, 9);
  ASSERT_TRUE(dag.ok());
  EXPECT_TRUE(MatchesReference(*dag, {SplitStep{"Y", "j", {16}},
                                      ComputeAtStep{"dense", "Y", "j.0"},
                                      AnnotateStep{"Y", "j.1", "vectorize"},
                                      ReorderStep{"dense", {"i", "r0", "j"}},
                                      AnnotateStep{"dense", "j", "vectorize"}}));
}

TEST(JitMultiStage, RFactorOfASplitReduction) {
  auto dag = softmax({3, 37});
  ASSERT_TRUE(dag.ok());
  // 37 = 10 chunks of 4, the last ragged: the partial sums see a guard.
  EXPECT_TRUE(MatchesReference(*dag, {SplitStep{"expsum", "r0", {4}},
                                      RFactorStep{"expsum", "r0.1"},
                                      SplitStep{"maxval", "r0", {8}},
                                      RFactorStep{"maxval", "r0.0"}}));
}

TEST(JitMultiStage, RFactorOfAWholeReduction) {
  auto dag = matmul(6, 10, 12);
  EXPECT_TRUE(MatchesReference(*dag, {RFactorStep{"C", "r0"}, AnnotateStep{"C.rf", "rf", "parallel"}}));
  auto pool = global_avg_pool2d(1, 4, 5, 7);
  ASSERT_TRUE(pool.ok());
  State probe(*pool);
  std::string reduce_stage;
  for (const StageState& s : probe.stages()) {
    if (s.op->reduce != ReduceKind::kNone) reduce_stage = s.op->name;
  }
  EXPECT_TRUE(MatchesReference(*pool, {RFactorStep{reduce_stage, "r1"}}));
}

TEST(JitMultiStage, CacheReadOfARowAndComputeRoot) {
  auto dag = matmul(9, 20, 11);
  std::vector<Step> steps{CacheReadStep{"A", "C", "local"}, ComputeAtStep{"A.local", "C", "i"}};
  EXPECT_TRUE(MatchesReference(*dag, steps));
  State state(*dag);
  ASSERT_TRUE(state.apply_all(steps).ok());
  EXPECT_EQ(state.stage(state.stage_index("A.local")).buffer_shape, (std::vector<int64_t>{1, 11}));
  steps.push_back(ComputeRootStep{"A.local"});
  EXPECT_TRUE(MatchesReference(*dag, steps));
}

TEST(JitMultiStage, GlobalCacheScopeAndNestedAttachments) {
  auto dag = matmul(16, 32, 24);
  std::vector<Step> steps{CacheWriteStep{"C", "global"},
                          CacheReadStep{"A", "C.local", "local"},
                          SplitStep{"C", "i", {4}},
                          ComputeAtStep{"C.local", "C", "i.0"},
                          ComputeAtStep{"A.local", "C.local", "i"}};
  EXPECT_TRUE(MatchesReference(*dag, steps));
}


// Bug caught: edge tiles that accumulate their whole (padded) local tile with only their reads
// guarded (schedule/pad_local.h; masked vector reads, clamped broadcast reads in codegen) must
// still compute every point inside C exactly, at prime and odd extents, with several rows of
// register tile and a vector of 64 or 16 lanes, on one thread and two; and a reduction step
// past its extent must still add nothing (its guard is not a padded slot's: a fuzz case).
TEST(JitMultiStage, PaddedEdgeTilesOfCeilSplitsMatchTheReference) {
  for (auto [m, n, k, knobs] : {
           std::tuple{67, 250, 67, nlohmann::json{{"C.i", {5, 1, 4, 4}}, {"C.j", {4, 1, 1, 64}}, {"C.r0", {5, 16}},
                                                  {"C.parallel", 2}, {"C.unroll", 512}}},
           std::tuple{13, 61, 29, nlohmann::json{{"C.i", {2, 1, 2, 4}}, {"C.j", {4, 1, 1, 16}}, {"C.r0", {2, 16}},
                                                 {"C.parallel", 1}, {"C.unroll", 0}}},
           // A reduction split past its extent (9 in 5 x 2) under unrolled loops: its guard stays.
           std::tuple{13, 17, 9, nlohmann::json{{"C.i", {4, 2, 1, 2}}, {"C.j", {5, 2, 2, 1}}, {"C.r0", {5, 2}},
                                                {"C.parallel", 1}, {"C.unroll", 512}}},
           std::tuple{50, 70, 33, nlohmann::json{{"C.i", {7, 1, 2, 4}}, {"C.j", {5, 1, 1, 16}}, {"C.r0", {3, 11}},
                                                 {"C.parallel", 2}, {"C.unroll", 64}}}}) {
    auto dag = matmul(m, n, k);
    ASSERT_TRUE(dag.ok());
    for (const Sketch& sketch : generate_sketches(*dag)) {
      if (sketch.id != "C:tile_cache" && sketch.id != "C:tile") continue;
      auto values = sketch.knobs.from_json(knobs);
      ASSERT_TRUE(values) << sketch.id << " " << values.error().message;
      for (int threads : {1, 2}) {
        runtime::set_num_threads(threads);
        EXPECT_TRUE(MatchesReference(*dag, sketch.steps(*values))) << sketch.id << " " << knobs.dump();
      }
      runtime::set_num_threads(1);
    }
  }
}

}  // namespace
}  // namespace tessera::testing
