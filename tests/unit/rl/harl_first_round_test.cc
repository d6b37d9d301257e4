// harl's first round: with nothing measured it runs no trajectories and proposes the batch the
// evolutionary agent proposes at the same seed; from the second round on it searches its own way.
#include <gtest/gtest.h>

#include "agents/evolutionary_search.h"
#include "agents/rl/harl_search.h"
#include "env/proxy/reward_proxy.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents::rl {
namespace {

std::unique_ptr<env::TuningTask> simulated_matmul() {
  env::TaskOptions task_options;
  task_options.measurer = std::make_shared<runtime::ReplaySimulator>();
  return env::TuningTask::create(*schedule::matmul(96, 64, 80), task_options).value();
}

std::shared_ptr<env::CostModel> small_proxy() {
  env::ProxyOptions proxy;
  proxy.min_samples = 8;
  return std::make_shared<env::RewardProxy>(proxy);
}

TEST(HarlFirstRound, IsTheEvolutionaryAgentsFirstBatchAtTheSameSeed) {
  auto harl_task = simulated_matmul(), evo_task = simulated_matmul();
  HarlSearch harl(small_proxy(), 11, HarlOptions{});
  EvolutionarySearch evo(small_proxy(), 11);
  const std::vector<env::Candidate> first = harl.propose(*harl_task, 16);
  EXPECT_EQ(first, evo.propose(*evo_task, 16));
  EXPECT_EQ(harl.last_round().trajectories.trajectories, 0);
  // All of it is the evolved source's (and its ε random picks); no other source ran.
  EXPECT_EQ(harl.last_round().proposed.size(), 1u);
  EXPECT_EQ(harl.last_round().batch.at("evolved") + harl.last_round().batch.count("random") *
                                                        harl.last_round().batch.at("random"), 16);
  for (const env::Candidate& c : first) EXPECT_TRUE(c.source == "evolved" || c.source == "random") << c.source;

  // Once something is measured, harl's own round runs: trajectories, climbs, its own batch.
  harl.observe(*harl_task, harl_task->measure(first));
  evo.observe(*evo_task, evo_task->measure(first));
  const std::vector<env::Candidate> second = harl.propose(*harl_task, 16);
  EXPECT_GT(harl.last_round().trajectories.trajectories, 0);
  EXPECT_GT(harl.last_round().proposed.at("climb"), 0);
  EXPECT_FALSE(harl.last_round().plan.source_quotas.empty());
  EXPECT_NE(second, evo.propose(*evo_task, 16));
  for (const env::Candidate& c : second) EXPECT_FALSE(harl_task->measured(c));
}

}  // namespace
}  // namespace tessera::agents::rl
