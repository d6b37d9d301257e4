// Knob spaces: tile domains are the ordered factorizations with a bounded innermost factor;
// neighbour moves shift one prime factor between two levels (or step a choice); sampling is
// seeded; mutation moves exactly one knob; JSON round trips and refuses bad values.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <cmath>
#include <random>
#include <set>

#include "schedule/knobs.h"

namespace {

using namespace tessera::schedule;

TEST(Knobs, TileDomainIsOrderedFactorizationsWithBoundedInnermost) {
  Knob k = tile_knob("t", 8, 2, 4);
  EXPECT_EQ(k.domain, (std::vector<std::vector<int64_t>>{{2, 4}, {4, 2}, {8, 1}}));
  EXPECT_EQ(tile_knob("t", 1024, 4, 1024).domain.size(), 286u);  // C(13, 3)
  for (const auto& t : tile_knob("t", 36, 3, 6).domain) {
    EXPECT_EQ(t[0] * t[1] * t[2], 36);
    EXPECT_LE(t[2], 6);
  }
}

// A prime extent has only trivial factorizations; asked for, ceil tiles pad it to a multiple
// of 16 or 64 (by at most a quarter) so it can be tiled at all. A 1024 has enough divisors.
TEST(Knobs, CeilTilesForExtentsWithFewDivisors) {
  const Knob plain = tile_knob("t", 1009, 4, 64);
  EXPECT_EQ(plain.domain.size(), 3u);  // 1009 at one of the three outer levels
  const Knob k = tile_knob("t", 1009, 4, 64, true);
  EXPECT_NE(std::find(k.domain.begin(), k.domain.end(), std::vector<int64_t>{16, 1, 4, 16}), k.domain.end());
  std::set<std::vector<int64_t>> unique(k.domain.begin(), k.domain.end());
  EXPECT_EQ(unique.size(), k.domain.size());
  for (const auto& t : k.domain) {
    const int64_t inner = t[1] * t[2] * t[3];
    EXPECT_EQ(t[0], (1009 + inner - 1) / inner);  // the outermost covers the rest
    EXPECT_LE(4 * (t[0] * inner - 1009), 1009);
    EXPECT_LE(t[3], 64);
  }
  EXPECT_EQ(tile_knob("t", 1024, 4, 64, true).domain, tile_knob("t", 1024, 4, 64).domain);
  // Moves keep the outermost factor the ceiling of the rest: from (16, 1, 4, 16), moving a 2
  // of the outermost inward gives (8, 2, 4, 16); one of 16 outward gives (32, 1, 4, 8).
  KnobSpace space({k});
  auto values = space.from_json(nlohmann::json{{"t", {16, 1, 4, 16}}});
  ASSERT_TRUE(values.ok()) << values.error().message;
  std::set<std::vector<int64_t>> got;
  for (const auto& n : space.neighbours(*values, 0)) got.insert(space.value(n, 0));
  EXPECT_TRUE(got.count({8, 2, 4, 16}));
  EXPECT_TRUE(got.count({32, 1, 4, 8}));
  for (int move = 0; move < space.move_count(0); ++move) {
    if (auto moved = space.apply_move(*values, 0, move)) {
      EXPECT_TRUE(got.count(space.value(*moved, 0)));
    }
  }
}

// Bug caught: on a vector axis of 1000, exact tiles with narrow vectors (innermost 8, 10, 20,
// 25, 40 ...) outnumbered the padded whole-vector ones so far that 200 trials of search did not
// find a 16-lane tile (1000^3 at 0.69 of OpenBLAS while a padded 4 x 64 tile reaches 0.87).
TEST(Knobs, VectorAxisKeepsWholeVectorTilesWhereItHasThem) {
  const Knob k = tile_knob("t", 1000, 4, 64, true, 16);
  ASSERT_FALSE(k.domain.empty());
  for (const auto& t : k.domain) EXPECT_EQ(t[3] % 16, 0) << t[0] << " " << t[1] << " " << t[2] << " " << t[3];
  for (const std::vector<int64_t>& t : {std::vector<int64_t>{63, 1, 1, 16}, {16, 1, 1, 64}, {2, 1, 8, 64}}) {
    EXPECT_NE(std::find(k.domain.begin(), k.domain.end(), t), k.domain.end()) << t[0] << " " << t[2] << " " << t[3];
  }
  // Without whole-vector tiles nothing is dropped: 20 pads to 32 (too much), and a 1000 split
  // exactly has no innermost factor a multiple of 16.
  EXPECT_EQ(tile_knob("t", 20, 4, 64, true, 16).domain, tile_knob("t", 20, 4, 64, true).domain);
  EXPECT_EQ(tile_knob("t", 1000, 4, 64, false, 16).domain, tile_knob("t", 1000, 4, 64).domain);
}

// Bug caught: the whole-vector rule ran only on extents that get ceil tiles, so 144 channels (a
// MobileNetV2 depthwise conv in NHWC, vectorized along channels) kept innermost factors 1, 2, 3,
// 4, 6, 8, 9, 12, 18, 24 and 36 beside 16 and 48. Its fused-tile sketch drew 8- and 12-lane
// vectors, never beat 17 GFLOP/s in 300 trials and was left, while one of its 16-lane tiles runs
// at 1.12x oneDNN.
TEST(Knobs, ExactlyDividedVectorAxisKeepsOnlyWholeVectorTiles) {
  const Knob k = tile_knob("t", 144, 4, 64, true, 16);
  std::set<int64_t> innermost;
  for (const auto& t : k.domain) innermost.insert(t[3]);
  EXPECT_EQ(innermost, (std::set<int64_t>{16, 48}));
  // Every exact tile of whole vectors stays: 6 with 16 lanes (9 into three factors), 3 with 48.
  EXPECT_EQ(k.domain.size(), 9u);
  const Knob power_of_two = tile_knob("t", 1024, 4, 64, true, 16);
  size_t whole = 0;
  for (const auto& t : tile_knob("t", 1024, 4, 64).domain) whole += t[3] % 16 == 0;
  EXPECT_EQ(power_of_two.domain.size(), whole);
  for (const auto& t : power_of_two.domain) EXPECT_EQ(t[3] % 16, 0) << t[3];
}

TEST(Knobs, TileNeighboursMoveOnePrimeFactor) {
  KnobSpace space({tile_knob("t", 12, 2, 12)});
  auto values = space.from_json(nlohmann::json{{"t", {2, 6}}});
  ASSERT_TRUE(values.ok()) << values.error().message;
  std::vector<std::vector<int64_t>> got;
  for (const auto& n : space.neighbours(*values, 0)) got.push_back(space.value(n, 0));
  // From (2, 6): move the 2 inward -> (1, 12); move a 2 or the 3 outward -> (4, 3), (6, 2).
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::vector<int64_t>>{{1, 12}, {4, 3}, {6, 2}}));
}

TEST(Knobs, ChoiceNeighboursAndMasks) {
  KnobSpace space({choice_knob("unroll", KnobKind::kUnroll, {0, 16, 64, 512}),
                   tile_knob("fixed", 1, 2, 1)});
  KnobValues v{0, 0};
  ASSERT_EQ(space.neighbours(v, 0).size(), 1u);
  EXPECT_EQ(space.choice(space.neighbours(v, 0)[0], 0), 16);
  EXPECT_EQ(space.legal_move_mask(v), (std::vector<bool>{true, false}));
  v[0] = 2;
  EXPECT_EQ(space.neighbours(v, 0).size(), 2u);
}

TEST(Knobs, FixedMoveSetsNameEachEditAndRefuseIllegalOnes) {
  KnobSpace space({tile_knob("t", 12, 2, 6), choice_knob("unroll", KnobKind::kUnroll, {0, 16, 64})});
  EXPECT_EQ(space.move_count(0), 4);  // a*2+b over 2 levels
  EXPECT_EQ(space.move_count(1), 2);
  auto v = space.from_json(nlohmann::json{{"t", {2, 6}}, {"unroll", 0}});
  ASSERT_TRUE(v.ok()) << v.error().message;
  // Move 0*2+1: the smallest prime of level 0 (2) goes inward -> (1, 12), past the bound 6.
  EXPECT_FALSE(space.apply_move(*v, 0, 1).has_value());
  // Move 1*2+0: the smallest prime of level 1 (2) goes outward -> (4, 3).
  auto out = space.apply_move(*v, 0, 2);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(space.value(*out, 0), (std::vector<int64_t>{4, 3}));
  EXPECT_FALSE(space.apply_move(*v, 0, 0).has_value()) << "a == b is no move";
  EXPECT_FALSE(space.apply_move(*v, 1, 0).has_value()) << "no value before the first";
  EXPECT_EQ(space.choice(*space.apply_move(*v, 1, 1), 1), 16);
  EXPECT_FALSE(space.apply_move(*v, 1, 2).has_value());
  // Every legal move is one of the neighbours.
  for (int m = 0; m < space.move_count(0); ++m) {
    if (auto next = space.apply_move(*v, 0, m)) {
      auto n = space.neighbours(*v, 0);
      EXPECT_NE(std::find(n.begin(), n.end(), *next), n.end());
    }
  }
}

TEST(Knobs, SamplingIsSeededAndMutationMovesOneKnob) {
  KnobSpace space({tile_knob("a", 64, 3, 16), tile_knob("b", 48, 2, 16),
                   choice_knob("u", KnobKind::kUnroll, {0, 16, 64})});
  std::mt19937_64 r1(9), r2(9);
  EXPECT_EQ(space.sample(r1), space.sample(r2));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 100; ++i) {
    KnobValues v = space.sample(rng);
    KnobValues m = space.mutate(v, rng);
    int changed = 0;
    for (size_t k = 0; k < v.size(); ++k) changed += v[k] != m[k];
    EXPECT_EQ(changed, 1);
  }
}

TEST(Knobs, JsonRoundTripAndRefusals) {
  KnobSpace space({tile_knob("C.i", 16, 2, 16), choice_knob("C.unroll", KnobKind::kUnroll, {0, 16})});
  std::mt19937_64 rng(1);
  KnobValues v = space.sample(rng);
  auto back = space.from_json(space.to_json(v));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, v);
  auto err = [&](const nlohmann::json& j) { return space.from_json(j).error().message; };
  EXPECT_EQ(err({{"C.i", {4, 4}}}), "knob 'C.unroll' is missing");
  EXPECT_EQ(err({{"C.i", {3, 5}}, {"C.unroll", 0}}), "knob 'C.i' cannot take the value [3,5]");
  EXPECT_EQ(err({{"C.i", "big"}, {"C.unroll", 0}}), "knob 'C.i' has a value of the wrong type: \"big\"");
  EXPECT_EQ(err({{"C.i", {4, 4}}, {"C.unroll", 0}, {"C.x", 1}}), "unknown knob 'C.x'");
}

}  // namespace

namespace {

// Transfer-tuning carries knob values between spaces of other extents (KnobSpace::nearest).
TEST(KnobsNearest, SameSpaceMapsEveryValueToItselfAtDistanceZero) {
  KnobSpace space({tile_knob("i", 96, 3, 32), choice_knob("unroll", KnobKind::kUnroll, {0, 16, 64})});
  std::mt19937_64 rng(3);
  for (int n = 0; n < 20; ++n) {
    KnobValues v = space.sample(rng);
    auto nearest = space.nearest(space.to_json(v));
    ASSERT_TRUE(nearest);
    EXPECT_EQ(nearest->values, v);  // fails if a value maps to another index than its own
    EXPECT_EQ(nearest->distance, 0.0);
  }
}

// A tile of 64 split [2, 4, 8] carried to an extent of 128 keeps its inner factors (they are
// what the schedule's vectors and register tiles are made of) and lets the outermost cover the
// rest; the distance is the extents' log ratio. A choice goes to the nearest value.
TEST(KnobsNearest, KeepsInnerFactorsAndReportsTheShapeDistance) {
  KnobSpace to({tile_knob("i", 128, 3, 32), choice_knob("unroll", KnobKind::kUnroll, {0, 16, 64})});
  auto nearest = to.nearest(nlohmann::json{{"i", {2, 4, 8}}, {"unroll", 20}});
  ASSERT_TRUE(nearest);
  EXPECT_EQ(to.value(nearest->values, 0), (std::vector<int64_t>{4, 4, 8}));  // fails if the outermost is matched
  EXPECT_EQ(to.choice(nearest->values, 1), 16);
  EXPECT_NEAR(nearest->distance, std::log(2.0) + std::log(20.0 / 16.0), 1e-9);
}

// Knobs of another sketch (other names, another count, another tile depth) do not carry over.
TEST(KnobsNearest, RefusesOtherNamesAndShapes) {
  KnobSpace to({tile_knob("i", 128, 3, 32)});
  EXPECT_FALSE(to.nearest(nlohmann::json{{"j", {2, 4, 8}}}));
  EXPECT_FALSE(to.nearest(nlohmann::json{{"i", {16, 8}}}));
  EXPECT_FALSE(to.nearest(nlohmann::json{{"i", {2, 4, 8}}, {"unroll", 16}}));
  EXPECT_FALSE(to.nearest(nlohmann::json{{"i", 16}}));
}

}  // namespace
