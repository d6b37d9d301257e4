// measure.cold_constants: the buffers evicted before every timed call are exactly the task's
// constant inputs and the kernel's buffers packed from them (never an activation or an output),
// the hook runs before every call outside its timed span, and the option and the constant flags
// cross the worker protocol.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "jit_test_util.h"
#include "runtime/measure_local.h"
#include "runtime/timing.h"
#include "runtime/worker_protocol.h"
#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace tessera::runtime {
namespace {

// Bug caught: a packed dense layer's weights evicted but not its packed copy (the buffer the
// kernel reads), or the activation X or the output evicted as if constant.
TEST(ColdConstants, EvictsTheConstantsAndTheirPackedCopiesOnly) {
  auto dag = schedule::dense_bias(8, 32, 16);
  ASSERT_TRUE(dag.ok());
  auto task = make_measure_task(*dag);
  ASSERT_TRUE(task.ok()) << task.error().message;
  ASSERT_EQ(task->constant_inputs, (std::vector<bool>{false, true, true}));  // X, W, bias
  const auto sketches = schedule::generate_sketches(*dag);
  auto packed = std::find_if(sketches.begin(), sketches.end(),
                             [](const schedule::Sketch& s) { return s.id.find(":packed") != std::string::npos; });
  ASSERT_NE(packed, sketches.end());
  schedule::State state(*dag);
  ASSERT_TRUE(state.apply_all(packed->steps(schedule::KnobValues(packed->knobs.size(), 0))).ok());
  auto func = schedule::lower(state, "k");
  ASSERT_TRUE(func.ok()) << func.error().message;
  auto kernel = compile_cpu(*func);
  ASSERT_TRUE(kernel.ok()) << kernel.error().message;
  ASSERT_EQ(kernel->packed().size(), 1u);
  auto buffers = task_buffers(*task);
  std::vector<void*> args;
  for (auto& b : buffers) args.push_back(b->data());
  const std::vector<ColdBuffer> cold = constant_buffers(*kernel, *task, args);
  ASSERT_EQ(cold.size(), 3u);
  EXPECT_EQ(cold[0].data, args[1]);
  EXPECT_EQ(cold[0].bytes, 32u * 16 * sizeof(float));
  EXPECT_EQ(cold[1].data, args[2]);
  EXPECT_EQ(cold[1].bytes, 32u * sizeof(float));
  EXPECT_EQ(cold[2].data, kernel->packed_buffers()[0]);
  EXPECT_EQ(cold[2].bytes, static_cast<size_t>(kernel->packed()[0].size) * sizeof(float));
  // And measuring with them cold still checks and times the kernel.
  MeasureOptions options;
  options.cold_constants = true;
  options.min_repeat_ms = 1;
  options.min_warmup_ms = 0;
  MeasureResult result = measure_loaded_kernel(*kernel, *task, options);
  EXPECT_EQ(result.error, MeasureError::kNone) << result.message;
  EXPECT_EQ(result.costs.size(), 3u);
}

// Bug caught: the eviction counted in the call's time (every call would read >= 20 ms), or run
// once per repeat instead of before every call. The hook is 200x the call and the bound half the
// hook: a 100 us sleep overslept to 2 ms on a loaded 2-core guest, which a 1.5 ms bound (with a
// 2 ms hook) read as the bug.
TEST(ColdConstants, TheHookRunsBeforeEveryCallOutsideItsTime) {
  int calls = 0, hooks = 0;
  TimingOptions options;
  options.warmup = 1;
  options.repeats = 3;
  options.min_repeat_ms = 0.5;
  options.before_each_call = [&] {
    EXPECT_EQ(hooks, calls);  // one hook, then its call
    ++hooks;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  };
  Timing t = time_callable([&] { ++calls; std::this_thread::sleep_for(std::chrono::microseconds(100)); }, options);
  EXPECT_EQ(hooks, calls);
  ASSERT_EQ(t.seconds.size(), 3u);
  for (double per_call : t.seconds) EXPECT_LT(per_call, 10e-3);
}

// Bug caught: the worker timing warm constants because the flag or the task's constant inputs
// were dropped on the way.
TEST(ColdConstants, TheOptionAndTheConstantFlagsCrossTheWorkerProtocol) {
  ObjectCode object;
  object.entry = "k";
  object.bytes = "x";
  MeasureOptions options;
  options.cold_constants = true;
  auto back = run_from_message(run_message(object, options));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->second.cold_constants);
  MeasureTask task;
  task.inputs = {{1.0f}, {2.0f}};
  task.constant_inputs = {false, true};
  task.output_sizes = {1};
  task.checks = {OutputCheck{{}, {3.0f}}};
  auto task_back = task_from_message(task_message(task));
  ASSERT_TRUE(task_back) << task_back.error().message;
  EXPECT_EQ(task_back->constant_inputs, task.constant_inputs);
}

}  // namespace
}  // namespace tessera::runtime
