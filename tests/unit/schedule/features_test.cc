// Program features: fixed length and names, deterministic, and they see what schedules change
// (vector lanes, local buffers, tiling) and what they keep (the arithmetic of the op).
#include <gtest/gtest.h>

#include <cmath>

#include "schedule/features.h"
#include "schedule/hand_schedules.h"
#include "schedule/lower.h"
#include "schedule/ops.h"

namespace {

using namespace tessera::schedule;

std::vector<float> features_of(const ComputeDAG& dag, const std::vector<Step>& steps) {
  State state(dag);
  EXPECT_TRUE(state.apply_all(steps).ok());
  auto func = lower(state, "k");
  EXPECT_TRUE(func.ok());
  return extract_features(*func);
}

float feature(const std::vector<float>& f, const std::string& name) {
  const auto& names = feature_names();
  auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return f[static_cast<size_t>(it - names.begin())];
}

TEST(Features, FixedLengthAndDeterministic) {
  auto dag = matmul(64, 48, 32);
  auto a = features_of(*dag, {});
  EXPECT_EQ(a.size(), feature_names().size());
  EXPECT_EQ(a, features_of(*dag, {}));
  auto conv = conv2d_bias_relu(Conv2dParams{1, 4, 8, 8, 8, 3, 3});
  EXPECT_EQ(features_of(*conv, {}).size(), a.size());
}

TEST(Features, CountTheArithmeticOfTheOp) {
  auto dag = matmul(64, 48, 32);
  auto f = features_of(*dag, {});
  EXPECT_NEAR(feature(f, "sum_float_mul"), std::log1p(64.0 * 48 * 32), 1e-3);
  EXPECT_NEAR(feature(f, "sum_float_add"), std::log1p(64.0 * 48 * 32), 1e-3);
  // Tiling that divides the shape changes the loops, not the work; a ragged tiling pays for
  // the guarded iterations it runs past the edge.
  auto even = matmul(64, 64, 32);
  EXPECT_NEAR(feature(features_of(*even, matmul_hand_schedule(64, 64, 32)), "sum_float_mul"),
              std::log1p(64.0 * 64 * 32), 1e-3);
  auto ragged = features_of(*dag, matmul_hand_schedule(64, 48, 32));  // 48 = 1.5 tiles of 32
  EXPECT_NEAR(feature(ragged, "sum_float_mul"), std::log1p(64.0 * 64 * 32), 1e-3);
}

// A padding unswitch's branches count in the share of iterations that run each: here the
// plain one runs at i = 0 only and does 1 multiply, the other 2, over 4 iterations: 1 + 3 * 2.
// Bug caught: walking only the plain branch (4, as partition's unswitched edge tiles are), or
// both in full (12).
TEST(Features, WeighAPaddingUnswitchsBranchesByTheIterationsThatRunThem) {
  Expr i = var("i");
  Expr b = load("B", {i});
  Stmt plain = make_store("A", i, b * Expr(2.0));
  Stmt general = make_store("A", i, b * Expr(2.0) * Expr(3.0));
  LoweredFunc func;
  func.name = "k";
  func.body = make_for(i, 4, ForKind::kSerial, make_padding_unswitch(i < Expr(1), plain, general));
  EXPECT_NEAR(feature(extract_features(func), "sum_float_mul"), std::log1p(1.0 + 3 * 2), 1e-3);
}

// The share is counted exactly over a box of three loops with a conjunction of strict and
// non-strict comparisons whose coefficients have both signs; the test counts the points itself.
// Bug caught: a run bound off by one along the counted row (floor against ceil for a negative
// coefficient, < taken as <=), or a row's start value not carried between the other loops.
TEST(Features, CountAPaddingUnswitchsShareExactlyOverSeveralLoops) {
  Expr i = var("i"), j = var("j"), k = var("k");
  Expr condition = (i * Expr(2) - j <= Expr(1)) && (j - k * Expr(3) < Expr(4)) && (Expr(3) - i * Expr(2) - k <= Expr(0)) &&
                   (Expr(0) - j * Expr(2) + i < Expr(-1));
  int64_t holding = 0;
  for (int64_t iv = 0; iv < 5; ++iv) {
    for (int64_t jv = 0; jv < 7; ++jv) {
      for (int64_t kv = 0; kv < 3; ++kv) {
        holding += iv * 2 - jv <= 1 && jv - kv * 3 < 4 && 3 - iv * 2 - kv <= 0 && -jv * 2 + iv < -1;
      }
    }
  }
  ASSERT_GT(holding, 0);
  ASSERT_LT(holding, 5 * 7 * 3);
  Expr b = load("B", {j});
  Stmt plain = make_store("A", j, b * Expr(2.0));
  Stmt general = make_store("A", j, b * Expr(2.0) * Expr(3.0));
  LoweredFunc func;
  func.name = "k";
  func.body = make_for(k, 3, ForKind::kSerial,
                       make_for(i, 5, ForKind::kSerial,
                                make_for(j, 7, ForKind::kSerial, make_padding_unswitch(condition, plain, general))));
  // Each point runs 1 multiply where the condition holds and 2 where it does not.
  const double multiplies = static_cast<double>(holding) + 2.0 * static_cast<double>(5 * 7 * 3 - holding);
  EXPECT_NEAR(feature(extract_features(func), "sum_float_mul"), std::log1p(multiplies), 1e-4);
}

TEST(Features, SeeVectorizationLocalBuffersAndTiling) {
  auto dag = matmul(64, 64, 64);
  auto plain = features_of(*dag, {});
  auto hand = features_of(*dag, matmul_hand_schedule(64, 64, 64));
  auto cached = features_of(*dag, matmul_cache_write_schedule(64, 64, 64));
  EXPECT_EQ(feature(plain, "max_vector_lanes"), 0.0f);
  EXPECT_NEAR(feature(hand, "max_vector_lanes"), std::log1p(16.0), 1e-5);
  EXPECT_EQ(feature(hand, "max_local_bytes"), 0.0f);
  EXPECT_GT(feature(cached, "max_local_bytes"), 0.0f);
  EXPECT_GT(feature(hand, "sum_contiguous"), feature(plain, "sum_contiguous"));
  MatmulTiling other;
  other.mr = 4;
  EXPECT_NE(features_of(*dag, matmul_hand_schedule(64, 64, 64, other)), hand);
}

TEST(Features, SeeRegisterTilesAndCacheReuse) {
  // The hand micro-kernel keeps an 8 x (2 x 16) tile of C in registers and feeds it from 8 + 32
  // loaded elements per k; the untiled loop nest has no register body and streams B through L1
  // for every row of C.
  auto dag = matmul(256, 256, 256);
  auto plain = features_of(*dag, {});
  auto hand = features_of(*dag, matmul_hand_schedule(256, 256, 256));
  EXPECT_NEAR(feature(hand, "max_register_tile"), std::log1p(8.0 * 2 * 16), 1e-4);
  EXPECT_EQ(feature(plain, "max_register_tile"), std::log1p(1.0f));
  EXPECT_GT(feature(hand, "max_body_intensity"), feature(plain, "max_body_intensity"));
  EXPECT_LT(feature(hand, "sum_l1_traffic"), feature(plain, "sum_l1_traffic"));
  EXPECT_EQ(feature(hand, "max_register_spill"), 0.0f);  // 16 vectors of 32
}

TEST(Features, SeeAccumulatorTilesThatSpill) {
  // 16 rows x 24 lanes: each row takes two vector registers, 32 in all, past the 28 the
  // accumulators can have; 16 x 16 fits.
  auto dag = matmul(256, 256, 256);
  auto wide = features_of(*dag, matmul_hand_schedule(256, 256, 256, {.mr = 16, .nr = 1, .lanes = 24}));
  auto fits = features_of(*dag, matmul_hand_schedule(256, 256, 256, {.mr = 16, .nr = 1, .lanes = 16}));
  EXPECT_NEAR(feature(wide, "max_register_spill"), std::log1p(32.0 - 28), 1e-5);
  EXPECT_EQ(feature(fits, "max_register_spill"), 0.0f);
}

}  // namespace
