// PPO on a toy knob landscape with a known optimum: three knobs of eight values each, one
// ±1 edit per step (edges masked), rewarded by the change in -(squared distance to a target).
// Within a fixed budget of episodes the greedy policy must walk from random starts to states
// of at least 95% of the optimum's quality. Also: masked actions are never taken, and the
// same seed gives the same learning run, and a saved agent loads into a fresh one intact.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "agents/rl/ppo.h"

namespace tessera::agents::rl {
namespace {

constexpr int kKnobs = 3, kValues = 8, kActions = 2 * kKnobs, kSteps = 20;
const int kTarget[kKnobs] = {5, 1, 6};

struct Toy {
  int x[kKnobs];
  double value() const {
    double d = 0;
    for (int k = 0; k < kKnobs; ++k) d += (x[k] - kTarget[k]) * (x[k] - kTarget[k]);
    return -d;
  }
  std::vector<float> observation() const {
    std::vector<float> o;
    for (int k = 0; k < kKnobs; ++k) o.push_back(static_cast<float>(x[k]) / (kValues - 1));
    return o;
  }
  std::vector<bool> mask() const {
    std::vector<bool> m;
    for (int k = 0; k < kKnobs; ++k) {
      m.push_back(x[k] > 0);
      m.push_back(x[k] < kValues - 1);
    }
    return m;
  }
  void apply(int action) { x[action / 2] += action % 2 ? 1 : -1; }
};

// Quality in [0, 1]: 1 at the optimum, 0 at the worst state.
double quality(const Toy& t) {
  double worst = 0;
  for (int k = 0; k < kKnobs; ++k) worst += std::max(kTarget[k], kValues - 1 - kTarget[k]) * std::max(kTarget[k], kValues - 1 - kTarget[k]);
  return 1.0 + t.value() / worst;
}

Toy random_start(std::mt19937_64& rng) {
  Toy t;
  for (int& v : t.x) v = static_cast<int>(rng() % kValues);
  return t;
}

// The greedy policy's mean final quality over 30 starts.
double evaluate(PpoAgent& agent, std::mt19937_64& rng) {
  double total = 0;
  for (int trial = 0; trial < 30; ++trial) {
    Toy t = random_start(rng);
    for (int s = 0; s < kSteps; ++s) t.apply(agent.act(t.observation(), t.mask(), /*greedy=*/true).action);
    total += quality(t);
  }
  return total / 30;
}

// Trains for `episodes` and returns the greedy policy's mean final quality over 30 starts.
double train_and_evaluate(PpoAgent& agent, int episodes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int e = 0; e < episodes; ++e) {
    Toy t = random_start(rng);
    for (int s = 0; s < kSteps; ++s) {
      auto mask = t.mask();
      PpoDecision d = agent.act(t.observation(), mask);
      EXPECT_TRUE(mask[static_cast<size_t>(d.action)]) << "took a masked action";
      double before = t.value();
      t.apply(d.action);
      agent.record(d, (t.value() - before) / 10.0);
    }
    agent.end_trajectory(agent.value(t.observation()));
    if ((e + 1) % 8 == 0) agent.update();
  }
  return evaluate(agent, rng);
}

TEST(Ppo, ReachesNinetyFivePercentOfAToyLandscapesOptimumAndKeepsItThroughSaveAndLoad) {
  PpoAgent agent(kKnobs, kActions, PpoOptions{.learning_rate = 1e-3, .seed = 4});
  double q = train_and_evaluate(agent, 400, 9);
  EXPECT_GE(q, 0.95) << "mean greedy final quality after 400 episodes";

  // A fresh agent of another seed that loads the file acts as the trained one did.
  const std::string path = ::testing::TempDir() + "ppo_toy.pt";
  ASSERT_TRUE(agent.save(path).ok());
  PpoAgent fresh(kKnobs, kActions, PpoOptions{.learning_rate = 1e-3, .seed = 77});
  std::mt19937_64 probe(5);
  EXPECT_LT(evaluate(fresh, probe), 0.95) << "an untrained agent should not already be good";
  auto loaded = fresh.load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  std::mt19937_64 rng_a(6), rng_b(6);
  EXPECT_EQ(evaluate(fresh, rng_b), evaluate(agent, rng_a));
  EXPECT_EQ(fresh.value({0.5f, 0.5f, 0.5f}), agent.value({0.5f, 0.5f, 0.5f}));
}

TEST(Ppo, LoadRefusesAnotherSpaceOrAnotherFileByName) {
  const std::string path = ::testing::TempDir() + "ppo_small.pt";
  PpoAgent small(2, 3);
  ASSERT_TRUE(small.save(path).ok());
  PpoAgent other(kKnobs, kActions);
  auto refused = other.load(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(path), std::string::npos);
  EXPECT_NE(refused.error().message.find("another space"), std::string::npos);
  const std::string junk = ::testing::TempDir() + "ppo_junk.pt";
  std::FILE* f = std::fopen(junk.c_str(), "w");
  std::fputs("not a model", f);
  std::fclose(f);
  auto bad = other.load(junk);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("not a Tessera PPO agent file"), std::string::npos);
}

TEST(Ppo, SameSeedSameRun) {
  PpoAgent a(kKnobs, kActions, PpoOptions{.seed = 2}), b(kKnobs, kActions, PpoOptions{.seed = 2});
  EXPECT_EQ(train_and_evaluate(a, 16, 3), train_and_evaluate(b, 16, 3));
}

TEST(Ppo, NoLegalActionIsReportedNotTaken) {
  PpoAgent agent(2, 3);
  EXPECT_EQ(agent.act({0.f, 1.f}, {false, false, false}).action, -1);
  PpoDecision only = agent.act({0.f, 1.f}, {false, true, false});
  EXPECT_EQ(only.action, 1);
  EXPECT_NEAR(only.log_prob, 0.0, 1e-5) << "the only legal action has probability 1";
}

}  // namespace
}  // namespace tessera::agents::rl
