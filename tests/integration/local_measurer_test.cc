// LocalMeasurer (runtime/local_measurer.h) end to end, with the worker: a batch measured with its
// later candidates compiling beside the timing gets each candidate's own result, as one
// compiled first does; re-timing candidates it compiled before compiles nothing again.
#include <gtest/gtest.h>

#include "runtime/local_measurer.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;
using runtime::MeasureError;

std::vector<runtime::Schedule> mixed_batch() {
  return {matmul_hand_schedule(32, 48, 16), {SplitStep{"C", "k", {2}}}, {}, {SplitStep{"C", "i", {4}}}};
}

runtime::MeasureOptions quick(bool compile_while_timing) {
  runtime::MeasureOptions options;
  options.min_repeat_ms = 2;
  options.min_warmup_ms = 2;
  options.compile_while_timing = compile_while_timing;
  options.give_up_ratio = 0;  // every candidate timed in full
  return options;
}

TEST(LocalMeasurer, CompilingBesideTheTimingGivesEachCandidateItsOwnResult) {
  auto dag = matmul(32, 48, 16);
  ASSERT_TRUE(dag.ok());
  for (bool beside : {false, true}) {
    SCOPED_TRACE(beside ? "compiling beside the timing" : "compiling first");
    runtime::LocalMeasurer measurer({}, quick(beside), 1);
    auto results = measurer.measure(*dag, mixed_batch());
    ASSERT_EQ(results.size(), 4u);
    for (size_t i : {0, 2, 3}) {
      EXPECT_EQ(results[i].error, MeasureError::kNone) << i << ": " << results[i].message;
      EXPECT_EQ(results[i].costs.size(), 3u) << i;
      EXPECT_GT(results[i].compile_seconds, 0) << i;
    }
    EXPECT_EQ(results[1].error, MeasureError::kCompileError);  // fails if builds and runs are paired wrongly
    EXPECT_NE(results[1].message.find("no loop 'k'"), std::string::npos) << results[1].message;
  }
}

TEST(LocalMeasurer, RetimingCandidatesItCompiledCompilesNothing) {
  auto dag = matmul(32, 48, 16);
  ASSERT_TRUE(dag.ok());
  runtime::LocalMeasurer measurer({}, quick(true), 1);
  const std::vector<runtime::Schedule> batch = mixed_batch();
  measurer.measure(*dag, batch);
  const double built = measurer.phase_seconds().build;
  int timed = 0;
  measurer.retime(*dag, {batch[0], batch[3]}, 2, [&](size_t, runtime::MeasureResult r) {
    EXPECT_EQ(r.error, MeasureError::kNone) << r.message;
    EXPECT_GT(r.compile_seconds, 0);  // the kept build's own compile time
    timed += !r.costs.empty();
  });
  EXPECT_EQ(timed, 4);
  EXPECT_EQ(measurer.phase_seconds().build, built);  // fails if the kept objects are compiled again
  measurer.retime(*dag, {{SplitStep{"C", "j", {8}}}}, 1, [](size_t, runtime::MeasureResult) {});
  EXPECT_GT(measurer.phase_seconds().build, built);  // a schedule it never compiled is compiled
}

}  // namespace
}  // namespace tessera::testing
