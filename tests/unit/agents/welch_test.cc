// Welch's t-test and the incomplete beta function behind it, against known values.
#include <gtest/gtest.h>

#include <cmath>

#include "agents/welch.h"

namespace {

using namespace tessera::agents;

TEST(Welch, IncompleteBetaKnownValues) {
  EXPECT_NEAR(regularized_incomplete_beta(1, 1, 0.3), 0.3, 1e-12);       // uniform
  EXPECT_NEAR(regularized_incomplete_beta(3, 1, 0.5), 0.125, 1e-12);     // x^a
  EXPECT_NEAR(regularized_incomplete_beta(2, 2, 0.5), 0.5, 1e-12);       // symmetric
  EXPECT_NEAR(regularized_incomplete_beta(0.5, 0.5, 0.25), 1.0 / 3.0, 1e-9);  // arcsine law
}

TEST(Welch, OneSidedPValues) {
  // Means 2 and 5, variances 1: t = 3.674 with 4 degrees of freedom, one-sided p = 0.01065.
  EXPECT_NEAR(welch_p_less({1, 2, 3}, {4, 5, 6}), 0.01065, 2e-4);
  EXPECT_NEAR(welch_p_less({4, 5, 6}, {1, 2, 3}), 1 - 0.01065, 2e-4);
  EXPECT_NEAR(welch_p_less({1, 2, 3}, {1, 2, 3}), 0.5, 1e-12);
  EXPECT_EQ(welch_p_less({1}, {5, 6}), 1.0);          // too few samples to tell
  EXPECT_EQ(welch_p_less({1, 1, 1}, {2, 2, 2}), 0.0);  // no noise, clearly faster
}

}  // namespace
