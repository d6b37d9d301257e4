// GPU scheduling without a GPU: binding lowers to block / thread loops, the GPU plan splits a
// function into kernels with their launch shapes and refuses what a GPU cannot run, and the
// GPU sketches bind every stage they schedule.
#include <gtest/gtest.h>

#include <random>

#include "schedule/gpu_check.h"
#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/sketch_gpu.h"

namespace tessera::schedule {
namespace {

LoweredFunc lowered(const ComputeDAG& dag, const std::vector<Step>& steps) {
  State state(dag);
  auto applied = state.apply_all(steps);
  EXPECT_TRUE(applied.ok()) << (applied ? "" : applied.error().message);
  auto func = lower(state);
  EXPECT_TRUE(func.ok());
  return *func;
}

// Catches: a bound loop lowered as serial, or with the wrong dimension, or grid/block taken
// from the wrong loops.
TEST(GpuSchedule, BindingLowersToBlockAndThreadLoops) {
  auto dag = matmul(64, 32, 16);
  ASSERT_TRUE(dag.ok());
  auto func = lowered(*dag, {SplitStep{"C", "i", {8}}, SplitStep{"C", "j", {32}},
                             ReorderStep{"C", {"i.0", "j.0", "i.1", "j.1", "r0"}},
                             BindStep{"C", "i.0", "blockIdx.y"}, BindStep{"C", "j.0", "blockIdx.x"},
                             BindStep{"C", "i.1", "threadIdx.y"}, BindStep{"C", "j.1", "threadIdx.x"}});
  const std::string text = to_string(func);
  EXPECT_NE(text.find("gpu_block.y (i.0, 0, 8)"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu_thread.x (j.1, 0, 32)"), std::string::npos) << text;
  auto plan = plan_gpu_kernels(func);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_EQ(plan->kernels.size(), 1u);
  EXPECT_EQ(plan->kernels[0].grid, (std::array<int64_t, 3>{1, 8, 1}));
  EXPECT_EQ(plan->kernels[0].block, (std::array<int64_t, 3>{32, 8, 1}));
}

// Catches: intermediates at root not becoming temporaries, or stages not becoming kernels.
TEST(GpuSchedule, EachRootStageIsAKernelAndIntermediatesAreTemporaries) {
  auto dag = softmax({4, 64});
  ASSERT_TRUE(dag.ok());
  const auto sketches = generate_gpu_sketches(*dag);
  ASSERT_FALSE(sketches.empty());
  std::mt19937_64 rng(3);
  auto state = apply_candidate(*dag, sketches[0], sketches[0].knobs.sample(rng));
  ASSERT_TRUE(state.ok()) << state.error().message;
  auto func = lower(*state);
  ASSERT_TRUE(func.ok());
  auto plan = plan_gpu_kernels(*func);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->kernels.size(), 3u) << to_string(*func);  // max, sum of exp, normalize
  EXPECT_EQ(plan->temporaries.size(), 2u);
}

// Catches: shared memory over the limit reaching NVRTC / the device instead of being refused.
TEST(GpuSchedule, SharedMemoryOverTheLimitIsRefusedWithTheReason) {
  auto dag = matmul(256, 256, 256);
  ASSERT_TRUE(dag.ok());
  auto func = lowered(*dag, {SplitStep{"C", "r0", {128}},
                             ReorderStep{"C", {"r0.0", "i", "j", "r0.1"}},
                             CacheReadStep{"A", "C", "shared"}, ComputeAtStep{"A.shared", "C", "r0.0"}});
  auto plan = plan_gpu_kernels(func);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("131072 bytes of shared memory, more than the limit 49152"),
            std::string::npos) << plan.error().message;
}

// Catches: a barrier placed where only some threads reach it.
TEST(GpuSchedule, SharedStageInsideAThreadLoopIsRefused) {
  auto dag = matmul(64, 64, 64);
  ASSERT_TRUE(dag.ok());
  auto func = lowered(*dag, {BindStep{"C", "i", "threadIdx.x"}, CacheReadStep{"A", "C", "shared"},
                             ComputeAtStep{"A.shared", "C", "j"}});
  auto plan = plan_gpu_kernels(func);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("computed inside thread loop 'i': the barriers around it would diverge"),
            std::string::npos) << plan.error().message;
}

// Catches: CPU annotations silently compiled as serial GPU code.
TEST(GpuSchedule, CpuAnnotationsAreRefused) {
  auto dag = matmul(64, 64, 64);
  ASSERT_TRUE(dag.ok());
  auto plan = plan_gpu_kernels(lowered(*dag, {AnnotateStep{"C", "i", "parallel"}}));
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.error().message.find("a CPU annotation the cuda target does not compile"), std::string::npos);
}

// Catches: a sketch that leaves a stage unbound (one GPU thread doing all the work) or binds
// more threads than a block holds.
TEST(GpuSchedule, SketchesBindEveryKernelWithinTheThreadLimit) {
  for (auto make : {+[] { return matmul(128, 96, 64); }, +[] { return dense_bias_gelu(16, 64, 32); },
                    +[] { return elementwise(Elementwise::kRelu, {5, 33}); }}) {
    auto dag = make();
    ASSERT_TRUE(dag.ok());
    std::mt19937_64 rng(5);
    for (const Sketch& sketch : generate_gpu_sketches(*dag)) {
      for (int i = 0; i < 10; ++i) {
        auto state = apply_candidate(*dag, sketch, sketch.knobs.sample(rng));
        ASSERT_TRUE(state.ok()) << state.error().message;
        auto func = lower(*state);
        ASSERT_TRUE(func.ok());
        auto plan = plan_gpu_kernels(*func, GpuLimits{1024, 1 << 30, 1 << 20});
        ASSERT_TRUE(plan.ok()) << sketch.id << ": " << plan.error().message;
        for (const GpuKernel& k : plan->kernels) {
          EXPECT_LE(k.threads(), 1024) << sketch.id;
          EXPECT_GT(k.grid[0] * k.threads(), 1) << sketch.id << "\n" << to_string(*func);
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera::schedule
