// GainCurve: the prior, what it learns per round index, how it carries the last learned index
// on, and a task's scale on it (agents/gain_curve.h).
#include "agents/gain_curve.h"

#include <gtest/gtest.h>

namespace tessera::agents {
namespace {

// Fails if the prior is not 1 at the first search round or does not decay as 1/(k-1)^2.
TEST(GainCurve, BeforeAnyRoundItIsTheOptimisticPrior) {
  GainCurve curve;
  EXPECT_DOUBLE_EQ(curve.at(1), 0.0);  // a task's defaults are not a search round
  EXPECT_DOUBLE_EQ(curve.at(2), 1.0);
  EXPECT_DOUBLE_EQ(curve.at(3), 0.25);
  EXPECT_DOUBLE_EQ(curve.at(5), 1.0 / 16);
  EXPECT_NEAR(curve.tail(2, 3), 1.0 + 0.25 + 1.0 / 9, 1e-12);
}

// ResNet-50's shape: first search rounds find little, second ones a lot. Fails if an index is
// not learned from its own rounds (at(3) would read the prior's 0.25 decay of at(2)), if the
// prior is not outweighed, or if an index past the data is not carried on from the last
// learned one.
TEST(GainCurve, LearnsEachRoundIndexAndCarriesTheLastOneOn) {
  GainCurve curve;
  for (int task = 0; task < 99; ++task) curve.add(2, 0.01), curve.add(3, 0.08);
  EXPECT_NEAR(curve.at(2), (99 * 0.01 + 1.0) / 100, 1e-12);
  EXPECT_GT(curve.at(3), 3 * curve.at(2)) << "the second search round is learned as the better one";
  EXPECT_NEAR(curve.at(3), 0.08, 0.002);
  EXPECT_EQ(curve.count(3), 99);
  EXPECT_EQ(curve.count(4), 0);
  EXPECT_NEAR(curve.at(4), curve.at(3) * 4.0 / 9.0, 1e-12);
  EXPECT_NEAR(curve.at(11), curve.at(3) * 4.0 / 100.0, 1e-12);
  EXPECT_NEAR(curve.tail(4, 2), curve.at(4) + curve.at(5), 1e-15);
}

// Deep in their searches tasks gain rarely: indices where no task found anything. Each reads the
// index before it decayed as 1/(k-1)^2, not less. Fails without the floor: each empty index
// then cuts the curve by its rounds + 1 (10x here), so at(12) would be below 1e-9 of at(3).
TEST(GainCurve, EmptyIndicesDecayAsThePriorNotGeometrically) {
  GainCurve curve;
  for (int task = 0; task < 9; ++task) {
    curve.add(2, 0.03), curve.add(3, 0.02);
    for (int k = 4; k <= 40; ++k) curve.add(k, 0.0);
  }
  for (int k = 4; k <= 40; ++k) EXPECT_NEAR(curve.at(k), curve.at(k - 1) * (k - 2) * (k - 2) / ((k - 1.0) * (k - 1)), 1e-15) << k;
  EXPECT_NEAR(curve.at(12), curve.at(3) * 4.0 / 121.0, 1e-15);
}

// One task's late jump, at an index few tasks have reached, is pooled with the indices before
// it: from the second search round on no index reads above the pooled mean. Fails without the
// pooling: at(9) would read (0.3 + prior) / 2, about 15x at(8), and carry on (the floor) to every
// later index, so a round deep in a search would look worth more than a task's third.
TEST(GainCurve, ALoneLateJumpIsPooledWithTheIndicesBeforeIt) {
  GainCurve curve;
  for (int task = 0; task < 20; ++task) curve.add(2, 0.04), curve.add(3, 0.03);
  for (int task = 0; task < 4; ++task)
    for (int k = 4; k <= 8; ++k) curve.add(k, 0.005);
  curve.add(9, 0.3);  // one task's jump in its ninth round
  const double pooled = (20 * 0.005 + 0.3) / 21;  // indices 4-9, the rounds' mean
  for (int k = 4; k <= 30; ++k) EXPECT_LE(curve.at(k), pooled + 1e-12) << k;
  for (int k = 10; k <= 30; ++k) EXPECT_LT(curve.at(k), curve.at(k - 1)) << k;
  EXPECT_LT(curve.at(9), curve.at(3));
  // The jump still counts: each of indices 4-9 reads the pooled mean, shrunk toward the prior.
  EXPECT_NEAR(curve.at(5), (4 * pooled + curve.at(4) * 9 / 16) / 5, 1e-12);
  EXPECT_GT(curve.at(5), 0.005 * 2);
}

// Gains outside [0, 1] (a best that got worse, a bad record) are clamped, not learned as is.
TEST(GainCurve, GainsAreClampedToARelativeDrop) {
  GainCurve curve;
  curve.add(2, -3.0);
  curve.add(2, 7.0);
  EXPECT_NEAR(curve.at(2), (0.0 + 1.0 + 1.0) / 3, 1e-12);
}

// A task's scale: what it found over what the curve expected of the same rounds, shrunk toward
// 1. Fails if the scale ignores the task's rounds (1 for both), ignores the shrinkage (0 for the
// one that found nothing), or compares against the wrong rounds of the curve.
TEST(GainCurve, ATaskScalesTheCurveByHowItHasDoneAgainstIt) {
  GainCurve curve;
  for (int task = 0; task < 50; ++task)
    for (int k = 2; k <= 8; ++k) curve.add(k, 0.04);
  TaskGains strong, idle;
  for (int k = 2; k <= 8; ++k) {
    strong.rounds.push_back(k), strong.found += 0.12;
    idle.rounds.push_back(k);
  }
  const double expected = [&] {
    double e = 0;
    for (int k = 2; k <= 8; ++k) e += curve.at(k);
    return e;
  }();
  const double evidence = curve.at(2) + curve.at(3);
  EXPECT_NEAR(strong.scale(curve), (0.84 + evidence) / (expected + evidence), 1e-12);
  EXPECT_GT(strong.scale(curve), 2.0);
  EXPECT_LT(idle.scale(curve), 0.3);
  EXPECT_GT(idle.scale(curve), 0.0);
  EXPECT_DOUBLE_EQ(TaskGains{}.scale(curve), 1.0) << "a task with no search round is the curve itself";
}

}  // namespace
}  // namespace tessera::agents
