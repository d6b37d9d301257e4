// harl's proxy climbs: once something is measured, each round scores the neighbourhoods of the
// fastest measured candidates; with climb_starts 0 it scores none.
#include <gtest/gtest.h>

#include "agents/rl/harl_search.h"
#include "env/proxy/reward_proxy.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents::rl {
namespace {

int climbed_in_third_round(int climb_starts) {
  env::TaskOptions task_options;
  task_options.measurer = std::make_shared<runtime::ReplaySimulator>();
  auto task = env::TuningTask::create(*schedule::matmul(96, 64, 80), task_options).value();
  env::ProxyOptions proxy;
  proxy.min_samples = 8;
  HarlOptions options;
  options.climb_starts = climb_starts;
  HarlSearch harl(std::make_shared<env::RewardProxy>(proxy), 5, options);
  for (int round = 0; round < 3; ++round) harl.observe(*task, task->measure(harl.propose(*task, 8)));
  return harl.last_round().climbed;
}

TEST(HarlClimbs, ScoreTheNeighbourhoodsOfTheFastestMeasured) {
  EXPECT_GT(climbed_in_third_round(4), 0);
  EXPECT_EQ(climbed_in_third_round(0), 0);
}

}  // namespace
}  // namespace tessera::agents::rl
