// GPU tests: candidates built by NVRTC, run on the device through the driver API and checked
// against the reference. Without a GPU every test skips with the reason probe_gpu gives (no
// libcuda.so.1, no device); only the probe's own contract is checked then.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "op_cases.h"
#include "runtime/cuda/driver.h"
#include "runtime/cuda/gpu_runner.h"
#include "schedule/sketch_gpu.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

#define REQUIRE_GPU()                                                          \
  auto gpu = runtime::cuda::probe_gpu();                                       \
  if (!gpu) GTEST_SKIP() << "no GPU here, skipped: " << gpu.error().message

TEST(GpuProbe, SaysWhyInOneLineOrNamesTheGpu) {
  auto gpu = runtime::cuda::probe_gpu();
  if (!gpu) {
    EXPECT_FALSE(gpu.error().message.empty());
    EXPECT_EQ(gpu.error().message.find('\n'), std::string::npos) << gpu.error().message;
    return;
  }
  EXPECT_FALSE(gpu->name.empty());
  EXPECT_GT(gpu->sm_count, 0);
  EXPECT_GE(gpu->cc_major, 7);
}

// Sampled candidates of each sketch of `dag`, measured on the GPU: every one that compiles runs
// and matches the reference.
void expect_candidates_correct(const ComputeDAG& dag, const std::string& arch, int samples) {
  std::mt19937_64 rng(7);
  auto task = runtime::make_measure_task(dag, 1);
  ASSERT_TRUE(task.ok()) << task.error().message;
  runtime::MeasureOptions options;
  options.min_repeat_ms = 1;
  options.repeat = 2;
  runtime::cuda::CudaBuildOptions build;
  build.arch = arch;
  const auto sketches = generate_gpu_sketches(dag);
  int ran = 0;
  for (int i = 0; i < samples; ++i) {
    const Sketch& sketch = sketches[static_cast<size_t>(i) % sketches.size()];
    KnobValues values = sketch.knobs.sample(rng);
    auto built = runtime::cuda::build_cuda({&dag, sketch.steps(values)}, build);
    if (built.failed_at == runtime::cuda::BuildPhase::kPlan) continue;
    ASSERT_EQ(built.error, runtime::MeasureError::kNone) << built.message;
    auto result = runtime::cuda::measure_on_gpu(built.module, *task, options);
    EXPECT_EQ(result.error, runtime::MeasureError::kNone)
        << sketch.id << " " << sketch.knobs.to_json(values).dump() << ": " << result.message << "\n"
        << built.module.source.code;
    ++ran;
  }
  EXPECT_GT(ran, 0);
}

TEST(GpuRunner, EveryOpOfTheSuiteRunsCorrectly) {
  REQUIRE_GPU();
  for (const OpCase& op : op_cases()) {
    SCOPED_TRACE(op.label);
    auto dag = op.make();
    ASSERT_TRUE(dag.ok());
    expect_candidates_correct(*dag, gpu->arch(), 6);
  }
}

TEST(GpuRunner, LargerMatmulAndConvRunCorrectly) {
  REQUIRE_GPU();
  auto mm = matmul(512, 512, 512);
  ASSERT_TRUE(mm.ok());
  expect_candidates_correct(*mm, gpu->arch(), 12);
  Conv2dParams p{1, 64, 28, 28, 64, 3, 3};
  p.pad_h = p.pad_w = 1;
  auto conv = conv2d(p);
  ASSERT_TRUE(conv.ok());
  expect_candidates_correct(*conv, gpu->arch(), 12);
}

}  // namespace
}  // namespace tessera::testing
