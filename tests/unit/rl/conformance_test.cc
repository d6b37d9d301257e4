// Conformance: every registered agent (the built-in ones, the learned ones and any plug-in
// registered before this runs) tunes a small matmul on the replay simulator for a few batches
// and is shown to act: each batch is non-empty, distinct and unmeasured, the agent's
// proposals change between batches, and every proposal is measured (the trial count grows).
#include <gtest/gtest.h>

#include <set>

#include "agents/registry.h"
#include "agents/rl/register.h"
#include "env/proxy/reward_proxy.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents {
namespace {

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, ActsOnTheSimulator) {
  env::TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  auto task = env::TuningTask::create(*schedule::matmul(96, 64, 80), options);
  ASSERT_TRUE(task.ok()) << task.error().message;
  AgentParams small;
  if (GetParam() == "evolutionary") small = {{"population", 256}, {"generations", 2}};
  if (GetParam() == "droplet") small = {{"warmup_trials", 8}};
  env::ProxyOptions proxy;
  proxy.min_samples = 8;
  AgentContext context{5, std::make_shared<env::RewardProxy>(proxy)};
  auto agent = make_agent(GetParam(), small, context);
  ASSERT_TRUE(agent.ok()) << agent.error().message;

  std::vector<std::set<env::Candidate>> batches;
  for (int round = 0; round < 5 && !(*agent)->done(); ++round) {
    auto proposed = (*agent)->propose(**task, 8);
    ASSERT_FALSE(proposed.empty()) << "round " << round;
    std::set<env::Candidate> batch(proposed.begin(), proposed.end());
    EXPECT_EQ(batch.size(), proposed.size()) << "duplicates in round " << round;
    for (const auto& c : proposed) EXPECT_FALSE((*task)->measured(c)) << "re-proposed a measured candidate";
    (*agent)->observe(**task, (*task)->measure(proposed));
    batches.push_back(std::move(batch));
  }
  ASSERT_GE(batches.size(), 2u);
  EXPECT_NE(batches[0], batches[1]) << "the agent repeats itself";
  EXPECT_GT((*task)->best_gflops(), 0.0);
  EXPECT_GT((*task)->trials(), 8);
}

std::vector<std::string> registered() {
  rl::register_rl_agents();
  return agent_names();
}

INSTANTIATE_TEST_SUITE_P(Registry, Conformance, ::testing::ValuesIn(registered()),
                         [](const auto& info) { return info.param; });

TEST(Conformance, EveryBuiltInAgentIsCovered) {
  auto names = registered();
  for (const char* expected : {"random", "droplet", "evolutionary", "harl", "harl_fixed"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  }
}

}  // namespace
}  // namespace tessera::agents
