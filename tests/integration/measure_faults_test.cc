// Fault injection through the whole measurement path: a batch mixing good candidates with ones
// that fail to schedule, are too large to compile, segfault, hang, write out of bounds, compute
// wrong values or allocate without bound. Each failure gets its error class and an actionable
// message, and every good candidate in the batch is still measured.
#include <gtest/gtest.h>

#include "runtime/builder.h"
#include "runtime/measure_local.h"
#include "runtime/runner.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;
using runtime::Fault;
using runtime::MeasureError;

struct Planted {
  const char* label;
  std::vector<Step> steps;
  Fault fault;
  MeasureError expected;
  const char* message_fragment;
};

TEST(MeasureFaults, EachFaultIsClassifiedAndTheBatchGoesOn) {
  auto dag = matmul(32, 48, 16);
  ASSERT_TRUE(dag.ok());
  const std::vector<Step> good = matmul_hand_schedule(32, 48, 16);
  const std::vector<Planted> batch = {
      {"good", good, Fault::kNone, MeasureError::kNone, ""},
      {"segfault", good, Fault::kSegfault, MeasureError::kWorkerCrash, "SIGSEGV"},
      {"good after a crash", {}, Fault::kNone, MeasureError::kNone, ""},
      {"infinite loop", good, Fault::kInfiniteLoop, MeasureError::kRunTimeout, "did not finish"},
      {"good after a hang", good, Fault::kNone, MeasureError::kNone, ""},
      {"out-of-bounds write", good, Fault::kOutOfBoundsWrite, MeasureError::kRuntimeError,
       "wrote outside buffer 'C'"},
      {"wrong value", good, Fault::kWrongValue, MeasureError::kWrongAnswer,
       "output 'C' differs from the reference"},
      {"runaway allocation", good, Fault::kHugeAllocation, MeasureError::kWorkerCrash,
       "cannot allocate"},
      {"refused schedule", {SplitStep{"C", "k", {2}}}, Fault::kNone, MeasureError::kCompileError,
       "stage 'C' has no loop 'k'"},
      {"too large to compile",
       {SplitStep{"C", "i", {32}}, SplitStep{"C", "j", {48}}, AnnotateStep{"C", "i.1", "unroll"},
        AnnotateStep{"C", "j.1", "unroll"}, AutoUnrollStep{"C", 4096}},
       Fault::kNone, MeasureError::kCompileTimeout, "unroll less"},
      {"good at the end", good, Fault::kNone, MeasureError::kNone, ""},
  };
  std::vector<runtime::BuildInput> inputs;
  for (const Planted& p : batch) inputs.push_back({&*dag, p.steps, p.fault});
  runtime::BuildOptions build_options;
  build_options.max_statements = 20000;
  auto builds = runtime::build_batch(inputs, build_options);

  auto task = runtime::make_measure_task(*dag);
  ASSERT_TRUE(task.ok()) << task.error().message;
  runtime::MeasureOptions options;
  options.run_timeout_s = 3;
  options.min_repeat_ms = 5;
  runtime::Runner runner;
  auto results = runner.measure_batch(*task, builds, options);
  ASSERT_EQ(results.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    const auto& r = results[i];
    SCOPED_TRACE(batch[i].label);
    EXPECT_EQ(r.error, batch[i].expected) << runtime::to_string(r.error) << ": " << r.message;
    EXPECT_NE(r.message.find(batch[i].message_fragment), std::string::npos) << r.message;
    if (batch[i].expected == MeasureError::kNone) {
      ASSERT_EQ(r.costs.size(), 3u);
      for (double c : r.costs) EXPECT_GT(c, 0);
      EXPECT_LE(r.max_error, task->tolerance);
    } else {
      EXPECT_TRUE(r.costs.empty());
    }
  }
  // One worker at first, one more after each crash or hang (three of them).
  EXPECT_EQ(runner.workers_started(), 4);
}

TEST(MeasureFaults, InProcessMeasurementAgreesOnHarmlessFaults) {
  auto dag = matmul(16, 16, 16);
  auto task = runtime::make_measure_task(*dag);
  ASSERT_TRUE(task.ok());
  for (auto [fault, expected] : {std::pair{Fault::kNone, MeasureError::kNone},
                                 {Fault::kWrongValue, MeasureError::kWrongAnswer},
                                 {Fault::kOutOfBoundsWrite, MeasureError::kRuntimeError}}) {
    auto builds = runtime::build_batch({{&*dag, {}, fault}});
    ASSERT_EQ(builds[0].error, MeasureError::kNone) << builds[0].message;
    auto kernel = runtime::load_kernel(builds[0].object);
    ASSERT_TRUE(kernel.ok()) << kernel.error().message;
    runtime::MeasureOptions options;
    options.min_repeat_ms = 1;
    auto r = runtime::measure_loaded_kernel(*kernel, *task, options);
    EXPECT_EQ(r.error, expected) << r.message;
  }
}

TEST(MeasureFaults, MissingWorkerIsAClearError) {
  auto dag = matmul(8, 8, 8);
  auto task = runtime::make_measure_task(*dag);
  auto builds = runtime::build_batch({{&*dag, {}, Fault::kNone}});
  runtime::Runner runner(runtime::RunnerOptions{"/nonexistent/tessera-worker"});
  auto r = runner.measure(*task, builds[0], {});
  EXPECT_EQ(r.error, MeasureError::kWorkerCrash);
  EXPECT_NE(r.message.find("'/nonexistent/tessera-worker' is not an executable"), std::string::npos)
      << r.message;
}

}  // namespace
}  // namespace tessera::testing
