// The replay simulator: records are answered exactly as they were measured, other schedules by
// the fixed model (deterministic, faster for better-vectorized schedules) or refused by name.
#include <gtest/gtest.h>

#include "runtime/replay_simulator.h"
#include "schedule/hand_schedules.h"
#include "schedule/lower.h"
#include "schedule/ops.h"
#include "schedule/step_json.h"

namespace tessera::runtime {
namespace {

MeasureRecord record_of(const schedule::ComputeDAG& dag, const std::vector<schedule::Step>& steps,
                        std::vector<double> costs, MeasureError error = MeasureError::kNone) {
  MeasureResult r;
  r.costs = std::move(costs);
  r.error = error;
  r.message = error == MeasureError::kNone ? "" : "planted";
  return make_record(dag.workload_key(), dag.summary(), "s", schedule::steps_to_json(steps), r);
}

TEST(ReplaySimulator, RecordsAreAnsweredAsMeasuredAndOthersAreRefused) {
  auto dag = schedule::matmul(64, 64, 64);
  auto hand = schedule::matmul_hand_schedule(64, 64, 64);
  std::vector<schedule::Step> plain;
  auto sim = ReplaySimulator::from_records({record_of(*dag, hand, {1e-3, 2e-3, 3e-3}),
                                            record_of(*dag, plain, {}, MeasureError::kWrongAnswer)});
  auto other = schedule::matmul(32, 32, 32);
  auto results = sim.measure(*dag, {hand, plain});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].costs, (std::vector<double>{1e-3, 2e-3, 3e-3}));
  EXPECT_EQ(results[1].error, MeasureError::kWrongAnswer);
  EXPECT_EQ(sim.replayed(), 2u);
  auto missing = ReplaySimulator::from_records({record_of(*dag, hand, {1e-3})}).measure(*other, {plain});
  EXPECT_EQ(missing[0].error, MeasureError::kRuntimeError);
  EXPECT_EQ(missing[0].message, "not in the replayed records");
}

TEST(ReplaySimulator, TheFixedModelIsDeterministicAndRewardsVectorizedTiling) {
  auto dag = schedule::matmul(128, 128, 128);
  ReplaySimulator sim;
  std::vector<schedule::Step> plain;
  auto hand = schedule::matmul_hand_schedule(128, 128, 128);
  auto a = sim.measure(*dag, {plain, hand});
  auto b = sim.measure(*dag, {plain, hand});
  ASSERT_EQ(a[0].error, MeasureError::kNone);
  ASSERT_EQ(a[1].error, MeasureError::kNone);
  EXPECT_EQ(a[0].costs, b[0].costs);
  EXPECT_LT(a[1].median(), a[0].median()) << "the hand schedule vectorizes and unrolls";
  EXPECT_EQ(sim.modelled(), 4u);
  schedule::Step bad = schedule::SplitStep{"nope", "i", {4}};
  auto refused = sim.measure(*dag, {{bad}});
  EXPECT_EQ(refused[0].error, MeasureError::kCompileError);
}

}  // namespace
}  // namespace tessera::runtime
