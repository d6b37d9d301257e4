// The sketch bandit and adaptive exploration: sliding-window UCB tries every arm, then favours
// the best one and follows a change of the best arm once the window forgets; exploration
// settings lengthen, widen and narrow with the observed improvement and stay within bounds,
// and stay fixed when adaptation is off.
#include <gtest/gtest.h>

#include <set>

#include "agents/adaptive_exploration.h"
#include "agents/sliding_window_ucb.h"

namespace tessera::agents {
namespace {

int plays_of_best(SlidingWindowUcb& bandit, std::mt19937_64& rng, int best, int rounds) {
  std::bernoulli_distribution coin(0.5);
  int chosen = 0;
  for (int t = 0; t < rounds; ++t) {
    int arm = bandit.select(rng);
    chosen += arm == best;
    bandit.reward(arm, arm == best ? 0.9 : 0.3 + 0.1 * coin(rng));
  }
  return chosen;
}

TEST(SlidingWindowUcb, TriesEveryArmThenFavoursTheBestAndFollowsAChange) {
  SlidingWindowUcb bandit(4, 40, 0.5);
  std::mt19937_64 rng(1);
  std::set<int> first;
  for (int t = 0; t < 4; ++t) {
    int arm = bandit.select(rng);
    first.insert(arm);
    bandit.reward(arm, 0.5);
  }
  EXPECT_EQ(first.size(), 4u) << "every arm is tried before any is repeated";
  EXPECT_GT(plays_of_best(bandit, rng, 2, 200), 120);
  EXPECT_GT(plays_of_best(bandit, rng, 0, 200), 120) << "the window lets it follow a new best arm";
  EXPECT_LE(bandit.plays(0) + bandit.plays(1) + bandit.plays(2) + bandit.plays(3), 40);
}

TEST(AdaptiveExploration, FollowsImprovementWithinBounds) {
  AdaptiveExploration a({.trajectory_length = 16, .trajectories = 32, .epsilon = 0.05, .patience = 4});
  a.after_trajectories(1.0, 0.8);  // trajectories still improving at the limit: longer
  EXPECT_EQ(a.settings().trajectory_length, 24);
  a.after_trajectories(2.0, 0.3);  // faster gains than before: more trajectories
  EXPECT_EQ(a.settings().trajectories, 40);
  for (int i = 0; i < 50; ++i) a.after_trajectories(0.0, 0.0);  // stalled: shorter, fewer
  EXPECT_EQ(a.settings().trajectory_length, 4);
  EXPECT_EQ(a.settings().trajectories, 8);
  a.after_measurement(2.0, 1.0);  // random beat the model: more random
  EXPECT_NEAR(a.settings().epsilon, 0.075, 1e-12);
  for (int i = 0; i < 50; ++i) a.after_measurement(2.0, 1.0);
  EXPECT_NEAR(a.settings().epsilon, 0.3, 1e-12);
  for (int i = 0; i < 100; ++i) a.after_measurement(1.0, 2.0);
  EXPECT_NEAR(a.settings().epsilon, 0.02, 1e-12);
}

TEST(AdaptiveExploration, KeepsMoreOfTheBatchForFreshBasinsWhileTheBestStalls) {
  AdaptiveExploration a;
  EXPECT_EQ(a.settings().fresh_share, 0.0);
  a.after_round(100.0, 101.0);  // a 1% gain: nothing to change
  EXPECT_EQ(a.settings().fresh_share, 0.0);
  a.after_round(101.0, 101.2);  // under 0.3%: stalled
  a.after_round(101.2, 101.2);
  EXPECT_NEAR(a.settings().fresh_share, 0.25, 1e-12);
  for (int i = 0; i < 10; ++i) a.after_round(101.2, 101.2);
  EXPECT_NEAR(a.settings().fresh_share, 0.5, 1e-12);  // at most half the batch
  a.after_round(101.2, 105.0);  // paying off again: halved
  EXPECT_NEAR(a.settings().fresh_share, 0.25, 1e-12);
}

TEST(AdaptiveExploration, FixedSettingsNeverMove) {
  AdaptiveExploration a({}, /*adaptive=*/false);
  a.after_trajectories(5.0, 1.0);
  a.after_measurement(3.0, 1.0);
  a.after_round(1.0, 1.0);
  EXPECT_EQ(a.settings().fresh_share, 0.0);
  EXPECT_EQ(a.settings().trajectory_length, ExplorationSettings{}.trajectory_length);
  EXPECT_EQ(a.settings().trajectories, ExplorationSettings{}.trajectories);
  EXPECT_EQ(a.settings().epsilon, ExplorationSettings{}.epsilon);
}

}  // namespace
}  // namespace tessera::agents
