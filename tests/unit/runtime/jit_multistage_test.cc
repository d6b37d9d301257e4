// Multi-stage schedules compiled and compared with the reference: compute_at with region
// inference (tiles, halos, clamped borders), cache_write accumulators, cache_read packing,
// rfactor, compute_root, fused epilogues, and padded edge tiles of ceil splits.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "jit_test_util.h"
#include "runtime/parallel_runtime.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;
using Exprs = std::vector<Expr>;

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

// A matmul, its bias and erf-GELU as ONNX export writes them, one stage per node:
// x = matmul + bias; y = (x * (erf(x / sqrt 2) + 1)) * 0.5. x is read twice, so the inlined
// stages form a diamond that closes at the first multiply; the last one, mul_1, is the consumer.
Result<ComputeDAG> matmul_bias_gelu_nodes(int64_t m, int64_t n, int64_t k) {
  Tensor a = placeholder("A", {m, k});
  Tensor w = constant_input("W", {k, n});
  Tensor bias = constant_input("bias", {n});
  Tensor mm = reduce("matmul", {m, n}, {k}, ReduceKind::kSum, {a, w},
                     [&](const Exprs& ax, const Exprs& r) { return a(ax[0], r[0]) * w(r[0], ax[1]); });
  auto node = [&](const std::string& name, std::vector<Tensor> in, std::function<Expr(const Exprs&)> f) {
    return compute(name, {m, n}, std::move(in), std::move(f));
  };
  Tensor x = node("add", {mm, bias}, [&](const Exprs& ax) { return mm(ax) + bias(ax[1]); });
  Tensor d = node("div", {x}, [&](const Exprs& ax) { return x(ax) / Expr(std::sqrt(2.0)); });
  Tensor e = node("erf", {d}, [&](const Exprs& ax) { return erf(d(ax)); });
  Tensor e1 = node("add_1", {e}, [&](const Exprs& ax) { return e(ax) + Expr(1.0); });
  Tensor xe = node("mul", {x, e1}, [&](const Exprs& ax) { return x(ax) * e1(ax); });
  Tensor y = node("mul_1", {xe}, [&](const Exprs& ax) { return xe(ax) * Expr(0.5); });
  return ComputeDAG::make("matmul_bias_gelu_nodes", {a, w, bias}, {y});
}

// BERT's FFN: the matmul is computed at the tile of GELU's last stage, its epilogue applied
// while the tile is in registers. Before the diamond was looked through, every sketch wrote the
// matmul out and ran GELU as a second pass (on a Zen 3 no slower, its 1.5 MB staying in L3:
// bench/NOTES.md; the fused form saves that pass over the output, which a CPU with less cache
// may feel: not measured).
TEST(JitMultiStage, MatmulFusesIntoTheEndOfAnErfGeluDiamond) {
  auto dag = matmul_bias_gelu_nodes(24, 48, 40);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  const std::vector<Sketch> sketches = generate_sketches(*dag);
  ASSERT_FALSE(sketches.empty());
  // fails if the diamond is not looked through: the sketch is then "mul_1:simple;matmul:tile_cache"
  EXPECT_EQ(sketches[0].id, "matmul:tile_fuse(mul_1)");
  int fused = 0;
  std::mt19937_64 rng(5);
  for (const Sketch& sketch : sketches) {
    if (sketch.id.find("tile_fuse(mul_1)") == std::string::npos) continue;
    ++fused;
    for (int draw = 0; draw < 3; ++draw) {
      // fails if an inlined stage of either branch is lost or read at the wrong tile
      EXPECT_TRUE(MatchesReference(*dag, sketch.steps(sketch.knobs.sample(rng)))) << sketch.id;
    }
  }
  EXPECT_EQ(fused, 2);  // matmul:tile_fuse(mul_1) and matmul:packed:tile_fuse(mul_1)

  // fails if a stage read by two others that do not meet is fused into one of them
  Tensor y = dag->outputs().front();
  const auto& stages = dag->stages();
  Tensor x = stages[static_cast<size_t>(dag->stage_index("add"))];
  Tensor other = compute("other", x->shape, {x}, [&](const Exprs& ax) { return x(ax) * Expr(2.0); });
  std::vector<Tensor> inputs;
  for (const Tensor& t : stages) {
    if (t->is_placeholder) inputs.push_back(t);
  }
  auto two_outputs = ComputeDAG::make("two_readers", inputs, {y, other});
  ASSERT_TRUE(two_outputs.ok()) << two_outputs.error().message;
  for (const Sketch& sketch : generate_sketches(*two_outputs)) {
    EXPECT_EQ(sketch.id.find("tile_fuse"), std::string::npos) << sketch.id;
  }
}

}  // namespace
}  // namespace tessera::testing
