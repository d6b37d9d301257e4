// The build pipeline (runtime/builder.h): candidates compiled on spare cores and on the
// caller's thread while earlier ones are timed must be the builds build_batch makes, each at
// its own index, whatever order they are taken in and however many spare cores there are.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/builder.h"
#include "runtime/runner.h"
#include "schedule/hand_schedules.h"
#include "schedule/ops.h"

namespace tessera::runtime {
namespace {

using namespace tessera::schedule;

std::vector<BuildInput> mixed_batch(const ComputeDAG& dag) {
  const std::vector<Step> hand = matmul_hand_schedule(32, 48, 16);
  std::vector<BuildInput> inputs;
  inputs.push_back({&dag, hand});
  inputs.push_back({&dag, {}});                                  // the default schedule: another object
  inputs.push_back({&dag, {SplitStep{"C", "k", {2}}}});         // refused: no loop k in C
  inputs.push_back({&dag, {SplitStep{"C", "i", {4}}}});
  inputs.push_back({&dag, hand});
  return inputs;
}

void expect_same_builds(const std::vector<BuildResult>& expected, const std::vector<BuildResult>& got) {
  ASSERT_EQ(expected.size(), got.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("candidate " + std::to_string(i));
    EXPECT_EQ(got[i].error, expected[i].error) << got[i].message;
    EXPECT_EQ(got[i].object.bytes, expected[i].object.bytes);  // fails if builds land at the wrong index
  }
}

TEST(BuildPipeline, BuildsWhatTheBatchBuildsAtTheSameIndices) {
  auto dag = matmul(32, 48, 16);
  ASSERT_TRUE(dag.ok());
  const std::vector<BuildResult> batch = build_batch(mixed_batch(*dag));
  ASSERT_EQ(batch[2].error, MeasureError::kCompileError);  // the batch itself holds a failure
  ASSERT_NE(batch[0].object.bytes, batch[1].object.bytes);  // and different objects to mix up
  for (const std::vector<int>& spare : {std::vector<int>{}, spare_cpus(1)}) {
    SCOPED_TRACE(std::to_string(spare.size()) + " spare cores");
    BuildPipeline in_order(mixed_batch(*dag), {}, spare);
    std::vector<BuildResult> got;
    for (size_t i = 0; i < in_order.size(); ++i) got.push_back(in_order.take(i));
    expect_same_builds(batch, got);

    BuildPipeline backwards(mixed_batch(*dag), {}, spare);
    std::vector<BuildResult> reversed(backwards.size());
    for (size_t i = backwards.size(); i-- > 0;) reversed[i] = backwards.take(i);
    expect_same_builds(batch, reversed);
  }
}

// A pipeline may be dropped with candidates never taken (a measurement cut short): its first
// build is still whole, and dropping it neither hangs (a destructor waiting for untaken
// candidates would, and ctest's time limit fails the test) nor touches freed results.
TEST(BuildPipeline, CanBeDroppedWithCandidatesUntaken) {
  auto dag = matmul(32, 48, 16);
  ASSERT_TRUE(dag.ok());
  BuildPipeline pipeline(mixed_batch(*dag), {}, spare_cpus(1));
  EXPECT_EQ(pipeline.take(0).error, MeasureError::kNone);
}

// The spare cores never include the one a single-threaded worker times on.
TEST(BuildPipeline, SpareCoresLeaveTheTimingCoreAlone) {
  const std::vector<int> timing = measurement_cpus(1);
  for (int cpu : spare_cpus(1)) EXPECT_EQ(std::count(timing.begin(), timing.end(), cpu), 0) << cpu;
}

}  // namespace
}  // namespace tessera::runtime
