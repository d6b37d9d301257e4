// GPU candidates measured in the isolated worker process (runtime/cuda/gpu_worker.h). Without a
// GPU: the gpu_run message carries the whole module and its timing protocol; GpuMeasurer hands
// every candidate to a worker process (the driver's refusal comes back from there), and a worker
// that met a GPU error retires so the next candidate gets a fresh one. With a GPU: a kernel that
// faults and one that never ends cost only their worker, and the next candidate is measured.
#include <gtest/gtest.h>

#include <random>

#include "runtime/cuda/driver.h"
#include "runtime/cuda/gpu_measurer.h"
#include "runtime/cuda/gpu_worker.h"
#include "runtime/runner.h"
#include "schedule/ops.h"
#include "schedule/sketch_gpu.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;
using runtime::MeasureError;

// Schedules of `dag`'s GPU sketches that NVRTC compiles, sampled with a fixed seed.
std::vector<std::vector<Step>> compiling_schedules(const ComputeDAG& dag, size_t count) {
  std::mt19937_64 rng(11);
  std::vector<std::vector<Step>> out;
  const auto sketches = generate_gpu_sketches(dag);
  for (int i = 0; i < 200 && out.size() < count; ++i) {
    const Sketch& sketch = sketches[static_cast<size_t>(i) % sketches.size()];
    std::vector<Step> steps = sketch.steps(sketch.knobs.sample(rng));
    if (runtime::cuda::build_cuda({&dag, steps}).error == MeasureError::kNone) out.push_back(std::move(steps));
  }
  return out;
}

// Bug caught: a field of the module or of the timing protocol lost or garbled on its way to the
// worker (the worker would launch the wrong grid, bind the wrong buffers or time differently).
TEST(GpuWorker, RunMessageCarriesTheWholeModuleAndTimingProtocol) {
  const ComputeDAG dag = matmul(64, 48, 32).value();
  auto schedules = compiling_schedules(dag, 1);
  ASSERT_EQ(schedules.size(), 1u);
  auto built = runtime::cuda::build_cuda({&dag, schedules[0]});
  ASSERT_EQ(built.error, MeasureError::kNone) << built.message;
  const runtime::cuda::CudaModule& module = built.module;
  ASSERT_FALSE(module.source.launches.empty());
  runtime::MeasureOptions options;
  options.warmup = 2;
  options.number = 3;
  options.repeat = 5;
  options.min_repeat_ms = 7.5;
  options.flush_cache = true;

  auto parsed = runtime::cuda::gpu_run_from_message(runtime::cuda::gpu_run_message(module, options));
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto& [got, got_options] = *parsed;
  EXPECT_EQ(got.image.bytes, module.image.bytes);
  EXPECT_EQ(got.image.ptx, module.image.ptx);
  ASSERT_EQ(got.source.launches.size(), module.source.launches.size());
  for (size_t i = 0; i < got.source.launches.size(); ++i) {
    EXPECT_EQ(got.source.launches[i].entry, module.source.launches[i].entry);
    EXPECT_EQ(got.source.launches[i].grid, module.source.launches[i].grid);
    EXPECT_EQ(got.source.launches[i].block, module.source.launches[i].block);
    EXPECT_EQ(got.source.launches[i].shared_bytes, module.source.launches[i].shared_bytes);
  }
  auto same_arguments = [](const std::vector<KernelArgument>& a, const std::vector<KernelArgument>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].name, b[i].name);
      EXPECT_EQ(a[i].size, b[i].size);
      EXPECT_EQ(a[i].dtype, b[i].dtype);
      EXPECT_EQ(a[i].is_output, b[i].is_output);
    }
  };
  same_arguments(got.source.arguments, module.source.arguments);
  same_arguments(got.source.temporaries, module.source.temporaries);
  EXPECT_EQ(got_options.warmup, 2);
  EXPECT_EQ(got_options.number, 3);
  EXPECT_EQ(got_options.repeat, 5);
  EXPECT_EQ(got_options.min_repeat_ms, 7.5);
  EXPECT_TRUE(got_options.flush_cache);

  runtime::Message broken = runtime::cuda::gpu_run_message(module, options);
  broken.blobs.clear();
  EXPECT_FALSE(runtime::cuda::gpu_run_from_message(broken));
}

// Bug caught: GpuMeasurer measuring in its own process again (no worker started; a faulting
// kernel would take the tuning run down), or a worker that met a GPU error kept for the next
// candidate (a broken context fails every later one).
TEST(GpuWorker, GpuMeasurerMeasuresInWorkerProcesses) {
  const ComputeDAG dag = matmul(64, 48, 32).value();
  auto schedules = compiling_schedules(dag, 2);
  ASSERT_EQ(schedules.size(), 2u);
  runtime::MeasureOptions options;
  options.min_repeat_ms = 1;
  options.repeat = 2;
  runtime::cuda::GpuMeasurer measurer({}, options, 1);
  auto results = measurer.measure(dag, schedules);
  ASSERT_EQ(results.size(), 2u);
  if (auto gpu = runtime::cuda::probe_gpu(); !gpu) {
    // The driver's refusal, said by each worker, which then retired.
    for (const auto& r : results) {
      EXPECT_EQ(r.error, MeasureError::kRuntimeError) << r.message;
      EXPECT_NE(r.message.find("libcuda"), std::string::npos) << r.message;
      EXPECT_GT(r.compile_seconds, 0);
    }
    EXPECT_EQ(measurer.workers_started(), 2);
    return;
  }
  for (const auto& r : results) {
    EXPECT_EQ(r.error, MeasureError::kNone) << r.message;
    EXPECT_EQ(r.costs.size(), 2u);
  }
  EXPECT_EQ(measurer.workers_started(), 1);  // sound runs keep their worker
}

// Bug caught (on a GPU): a faulting or endless kernel that ends the tuning process, or leaves
// the next candidate a broken context.
TEST(GpuWorker, AFaultingOrEndlessKernelCostsOnlyItsWorker) {
  auto gpu = runtime::cuda::probe_gpu();
  if (!gpu) GTEST_SKIP() << "no GPU here, skipped: " << gpu.error().message;
  const ComputeDAG dag = matmul(64, 48, 32).value();
  auto schedules = compiling_schedules(dag, 1);
  ASSERT_EQ(schedules.size(), 1u);
  auto good = runtime::cuda::build_cuda({&dag, schedules[0]});
  ASSERT_EQ(good.error, MeasureError::kNone) << good.message;
  auto hand_written = [&](const std::string& entry, const std::string& body) {
    runtime::cuda::CudaModule m = good.module;
    auto image = runtime::cuda::compile_cuda("extern \"C\" __global__ void " + entry + "(float* a) {" + body + "}",
                                             "sm_" + std::to_string(gpu->cc_major) + std::to_string(gpu->cc_minor));
    EXPECT_TRUE(image) << image.error().message;
    if (image) m.image = *image;
    m.source.launches = {{entry, {1, 1, 1}, {1, 1, 1}, 0}};
    return m;
  };
  const auto fault = hand_written("fault", "*(volatile float*)8 = a[0];");
  const auto endless = hand_written("endless", "volatile float* v = a; while (v[0] != 12345.0f) {}");
  auto task = runtime::make_measure_task(dag, 1);
  ASSERT_TRUE(task) << task.error().message;
  runtime::MeasureOptions options;
  options.min_repeat_ms = 1;
  options.run_timeout_s = 3;
  runtime::RunnerOptions no_limit;
  no_limit.memory_limit_bytes = 0;
  runtime::Runner runner(no_limit);
  auto run = [&](const runtime::cuda::CudaModule& m) {
    return runner.measure_message(*task, runtime::cuda::gpu_run_message(m, options), options);
  };
  auto faulted = run(fault);
  EXPECT_NE(faulted.error, MeasureError::kNone);
  EXPECT_EQ(run(good.module).error, MeasureError::kNone);
  EXPECT_EQ(run(endless).error, MeasureError::kRunTimeout);
  EXPECT_EQ(run(good.module).error, MeasureError::kNone);
  EXPECT_EQ(runner.workers_started(), 3);
}

}  // namespace
}  // namespace tessera::testing
