// harl's climb and scan sources and the sketch share: once something is measured, each round
// the climb and scan sources score the neighbourhoods of the fastest measured candidates (with
// climb_starts and wide_starts 0 those sources are off); every sketch in contention gets its
// share of each batch.
#include <gtest/gtest.h>

#include <map>

#include "agents/rl/harl_search.h"
#include "env/proxy/reward_proxy.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"
#include "tests/unit/linear_model.h"

namespace tessera::agents::rl {
namespace {

int climbed_in_third_round(int climb_starts, int wide_starts = 0) {
  env::TaskOptions task_options;
  task_options.measurer = std::make_shared<runtime::ReplaySimulator>();
  auto task = env::TuningTask::create(*schedule::matmul(96, 64, 80), task_options).value();
  env::ProxyOptions proxy;
  proxy.min_samples = 8;
  HarlOptions options;
  options.climb_starts = climb_starts;
  options.wide_starts = wide_starts;
  HarlSearch harl(std::make_shared<env::RewardProxy>(proxy), 5, options);
  for (int round = 0; round < 3; ++round) harl.observe(*task, task->measure(harl.propose(*task, 8)));
  const auto& proposed = harl.last_round().proposed;
  int climbed = 0;
  for (const char* source : {"climb", "scan"}) {
    if (auto it = proposed.find(source); it != proposed.end()) climbed += it->second;
  }
  return climbed;
}

TEST(HarlClimbs, ScoreTheNeighbourhoodsOfTheFastestMeasured) {
  EXPECT_GT(climbed_in_third_round(4), 0);
  EXPECT_EQ(climbed_in_third_round(0), 0);
  EXPECT_GT(climbed_in_third_round(0, 1), 0);  // the two-move scan alone
}

// The fewest candidates any sketch had in a 16-candidate batch, over rounds 1-4, on a fixed
// model that scores one sketch's candidates above the other's.
int fewest_of_a_sketch(double sketch_share) {
  env::TaskOptions task_options;
  task_options.measurer = std::make_shared<runtime::ReplaySimulator>();
  auto task = env::TuningTask::create(*schedule::matmul(96, 64, 80), task_options).value();
  HarlOptions options;
  options.sketch_share = sketch_share;
  options.sketch_trials = 1 << 20;  // every sketch stays in contention
  options.exploration.epsilon = 0;  // no random picks: only the share spreads the batch
  options.plan_share = 0;           // no source quotas either
  options.adaptive = false;         // and no evolved fresh share
  HarlSearch harl(std::make_shared<test_support::LinearModel>(), 5, options);
  int fewest = 1 << 20;
  for (int round = 0; round < 5; ++round) {
    auto batch = harl.propose(*task, 16);
    std::map<int, int> per_sketch;
    for (size_t s = 0; s < task->sketches().size(); ++s) per_sketch[static_cast<int>(s)] = 0;
    for (const env::Candidate& c : batch) ++per_sketch[c.sketch];
    for (const auto& [sketch, n] : per_sketch) {
      if (round >= 1) fewest = std::min(fewest, n);
    }
    harl.observe(*task, task->measure(batch));
  }
  return fewest;
}

TEST(HarlBatches, GiveEverySketchItsShare) {
  // matmul has three sketches: 0.75 of 16 split evenly is 4 each, whatever the model prefers.
  EXPECT_GE(fewest_of_a_sketch(0.75), 4);
  // Without the share the model's preference decides, and one sketch goes short.
  EXPECT_LT(fewest_of_a_sketch(0.0), 4);
}

TEST(HarlBatches, ReserveSlotsOnlyForSketchesInContention) {
  env::TaskOptions task_options;
  task_options.measurer = std::make_shared<runtime::ReplaySimulator>();
  auto task = env::TuningTask::create(*schedule::matmul(96, 64, 80), task_options).value();
  HarlOptions options;
  options.sketch_trials = 4;
  options.sketch_margin = 1.0;  // only the sketch of the task's fastest stays in contention
  HarlSearch harl(std::make_shared<test_support::LinearModel>(), 5, options);
  for (int round = 0; round < 4; ++round) harl.observe(*task, task->measure(harl.propose(*task, 16)));
  harl.propose(*task, 16);
  ASSERT_TRUE(task->best());
  const std::vector<int> contenders = contending_sketches(*task, 4, 1.0);
  ASSERT_EQ(contenders, std::vector<int>{task->best()->candidate.sketch}) << "every sketch measured 4 times by now";
  // Fails if the plan still splits its share among every sketch: the whole share goes to the one.
  const auto& quotas = harl.last_round().plan.sketch_quotas;
  ASSERT_EQ(quotas.size(), 1u);
  EXPECT_EQ(quotas.begin()->first, task->best()->candidate.sketch);
  EXPECT_EQ(quotas.begin()->second, 4);  // 0.25 of 16
}

}  // namespace
}  // namespace tessera::agents::rl
