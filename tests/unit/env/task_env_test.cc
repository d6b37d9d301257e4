// TaskEnv, the tuning task as an RL environment: seeded resets, masked knob-edit actions,
// rewards that are the change in the model's score, refusals that cost a penalty instead of
// throwing, truncation, and clones that replay exactly.
#include <gtest/gtest.h>

#include <set>

#include "env/task_env.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"
#include "tests/unit/linear_model.h"

namespace tessera::env {
namespace {

using test_support::LinearModel;

std::unique_ptr<TuningTask> small_task() {
  TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  return TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
}

TEST(TaskEnv, ResetIsSeededAndObservationsHaveTheSketchSize) {
  auto task = small_task();
  TaskEnv env(*task, std::make_shared<LinearModel>());
  auto [o1, i1] = env.reset(7);
  auto [o2, i2] = env.reset(7);
  ASSERT_TRUE(i1.valid) << i1.reason;
  EXPECT_EQ(i1.candidate.knobs, i2.candidate.knobs);
  EXPECT_EQ(o1.flat(), o2.flat());
  EXPECT_EQ(static_cast<int>(o1.flat().size()), env.observation_size(o1.sketch));
  for (float v : o1.knobs) EXPECT_TRUE(v >= 0.f && v <= 1.f);
  EXPECT_EQ(static_cast<int>(env.action_mask().size()), env.action_count());
  EXPECT_EQ(i1.action_mask, env.action_mask()) << "info carries the mask of its state";
}

TEST(TaskEnv, LegalStepsAreRewardedByTheScoreChange) {
  auto task = small_task();
  TaskEnv env(*task, std::make_shared<LinearModel>(), {.max_steps = 1000});
  env.reset(3, 0);
  int legal_steps = 0;
  for (int action = 0; action < env.action_count() && legal_steps < 20; ++action) {
    if (!env.action_mask()[static_cast<size_t>(action)]) continue;
    auto expected = env.peek(action);
    double before = env.score();
    StepResult r = env.step(action);
    if (!r.info.valid) continue;  // a refused schedule is tested below
    ++legal_steps;
    EXPECT_EQ(r.info.candidate.knobs, expected->knobs);
    EXPECT_NEAR(r.reward, r.info.score - before, 1e-6);
  }
  EXPECT_GT(legal_steps, 0);
}

TEST(TaskEnv, IllegalActionsCostThePenaltyAndChangeNothing) {
  auto task = small_task();
  TaskEnv env(*task, std::make_shared<LinearModel>(), {.max_steps = 1000, .invalid_penalty = 2.5});
  env.reset(5, 0);
  auto mask = env.action_mask();
  auto illegal = std::find(mask.begin(), mask.end(), false);
  ASSERT_NE(illegal, mask.end());
  Candidate before = env.candidate();
  StepResult r = env.step(static_cast<int>(illegal - mask.begin()));
  EXPECT_FALSE(r.info.valid);
  EXPECT_NE(r.info.reason.find("not legal"), std::string::npos);
  EXPECT_EQ(r.reward, -2.5);
  EXPECT_EQ(env.candidate().knobs, before.knobs);
  EXPECT_FALSE(env.step(-1).info.valid);
  EXPECT_FALSE(env.step(1 << 20).info.valid);
}

TEST(TaskEnv, EpisodesTruncateAndClonesReplayExactly) {
  auto task = small_task();
  TaskEnv env(*task, std::make_shared<LinearModel>(), {.max_steps = 5});
  env.reset(11);
  TaskEnv copy = env.clone();
  std::mt19937_64 pick(1);
  StepResult last;
  for (int s = 0; s < 5; ++s) {
    auto mask = env.action_mask();
    std::vector<int> legal;
    for (int a = 0; a < static_cast<int>(mask.size()); ++a) {
      if (mask[static_cast<size_t>(a)]) legal.push_back(a);
    }
    ASSERT_FALSE(legal.empty());
    int action = legal[pick() % legal.size()];
    last = env.step(action);
    StepResult mirrored = copy.step(action);
    EXPECT_EQ(mirrored.info.candidate.knobs, last.info.candidate.knobs);
    EXPECT_EQ(mirrored.reward, last.reward);
    EXPECT_EQ(last.truncated, s == 4);
  }
}

// An env on a shared feeder featurizes through it: every candidate a step visits is in the
// feeder's cache and scored as the feeder scores it. Fails if the env lowers and featurizes on
// its own again (the cache stays empty) or scores with anything but the feeder's model.
TEST(TaskEnv, ScoresThroughASharedFeeder) {
  auto task = small_task();
  ModelFeeder feeder(std::make_shared<LinearModel>());
  TaskEnv env(*task, feeder, {.max_steps = 1000});
  auto [observation, info] = env.reset(9, 0);
  ASSERT_TRUE(info.valid) << info.reason;
  EXPECT_EQ(feeder.featurized(), 1u);
  std::vector<Candidate> visited{info.candidate};
  for (int action = 0; action < env.action_count() && visited.size() < 6; ++action) {
    if (!env.action_mask()[static_cast<size_t>(action)]) continue;
    StepResult r = env.step(action);
    if (!r.info.valid) continue;
    visited.push_back(r.info.candidate);
    EXPECT_EQ(r.info.score, feeder.score(*task, {r.info.candidate}).at(0));
  }
  const size_t cached = feeder.featurized();
  EXPECT_EQ(cached, std::set<Candidate>(visited.begin(), visited.end()).size());
  feeder.score(*task, visited);
  EXPECT_EQ(feeder.featurized(), cached) << "the env's candidates were not in the shared cache";
}

}  // namespace
}  // namespace tessera::env
