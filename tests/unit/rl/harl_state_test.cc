// harl keeps its PPO agents across a resumed run: with a state directory it saves each sketch's
// agent after every round, a new HarlSearch on the same directory restores them, and files it
// cannot use are reported and replaced by fresh agents, never fatal.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agents/rl/harl_search.h"
#include "env/proxy/reward_proxy.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents::rl {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<env::TuningTask> simulated_task() {
  env::TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  auto task = env::TuningTask::create(*schedule::matmul(96, 64, 80), options);
  EXPECT_TRUE(task.ok());
  return std::move(*task);
}

std::shared_ptr<env::CostModel> small_proxy() {
  env::ProxyOptions proxy;
  proxy.min_samples = 8;
  return std::make_shared<env::RewardProxy>(proxy);
}

void run_rounds(HarlSearch& harl, env::TuningTask& task, int rounds) {
  for (int r = 0; r < rounds; ++r) harl.observe(task, task.measure(harl.propose(task, 8)));
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  return dir;
}

TEST(HarlState, AgentsAreSavedEachRoundAndRestoredOnResume) {
  const fs::path dir = fresh_dir("harl_state");
  HarlOptions options;
  options.state_dir = dir.string();
  auto task = simulated_task();
  HarlSearch first(small_proxy(), 3, options);
  run_rounds(first, *task, 2);
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().extension() == ".pt";
  EXPECT_GT(files, 0) << "no agent saved in " << dir;
  EXPECT_TRUE(first.state_errors().empty());
  EXPECT_EQ(first.restored_agents(), 0);

  HarlSearch resumed(small_proxy(), 4, options);
  run_rounds(resumed, *task, 1);
  EXPECT_GT(resumed.restored_agents(), 0);
  EXPECT_TRUE(resumed.state_errors().empty()) << resumed.state_errors().front();
}

TEST(HarlState, UnusableAgentFilesAreReportedAndReplaced) {
  const fs::path dir = fresh_dir("harl_state_bad");
  fs::create_directories(dir);
  auto task = simulated_task();
  for (size_t s = 0; s < task->sketches().size(); ++s) {
    std::ofstream(dir / ("ppo_sketch" + std::to_string(s) + ".pt")) << "not a model";
  }
  HarlOptions options;
  options.state_dir = dir.string();
  HarlSearch harl(small_proxy(), 3, options);
  run_rounds(harl, *task, 1);  // the first round, with nothing measured, runs no agent
  auto proposed = harl.propose(*task, 8);
  EXPECT_FALSE(proposed.empty());
  ASSERT_FALSE(harl.state_errors().empty());
  EXPECT_NE(harl.state_errors().front().find("not a Tessera PPO agent file"), std::string::npos);
  EXPECT_EQ(harl.restored_agents(), 0);
}

}  // namespace
}  // namespace tessera::agents::rl
