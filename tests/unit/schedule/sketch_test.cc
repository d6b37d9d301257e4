// Sketch generation: which rules fire for which ops, stable ids, and candidates that are
// valid by construction (the sketch fuzzer covers every op at scale).
#include <gtest/gtest.h>

#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace {

using namespace tessera::schedule;

std::vector<std::string> ids(const ComputeDAG& dag) {
  std::vector<std::string> out;
  for (const Sketch& s : generate_sketches(dag)) out.push_back(s.id);
  return out;
}

TEST(Sketch, MatmulGetsCacheWriteTilingAndInPlaceTiling) {
  auto dag = matmul(64, 64, 64);
  EXPECT_EQ(ids(*dag), (std::vector<std::string>{"C:tile_cache", "C:tile"}));
  EXPECT_EQ(ids(*dag), ids(*matmul(64, 64, 64)));  // stable
}

TEST(Sketch, ConvolutionFusesItsEpilogueAndInlinesPadding) {
  Conv2dParams p{1, 4, 8, 8, 8, 3, 3};
  p.pad_h = p.pad_w = 1;
  auto dag = conv2d_bias_relu(p);
  auto sketches = generate_sketches(*dag);
  ASSERT_EQ(sketches.size(), 2u);
  EXPECT_EQ(sketches[0].id, "conv:tile_fuse(Y)");
  EXPECT_EQ(sketches[1].id, "Y:simple;conv:tile");
  std::mt19937_64 rng(1);
  KnobValues v = sketches[0].knobs.sample(rng);
  auto steps = sketches[0].steps(v);
  ASSERT_FALSE(steps.empty());
  EXPECT_TRUE(std::holds_alternative<ComputeInlineStep>(steps[0]));
  auto state = apply_candidate(*dag, sketches[0], v);
  ASSERT_TRUE(state.ok()) << state.error().message;
  const StageState& conv = state->stage(state->stage_index("conv"));
  EXPECT_EQ(conv.location, ComputeLocation::kAttached);
  EXPECT_EQ(conv.attach_stage, "Y");
}

TEST(Sketch, SmallSpatialReductionsMayBeRFactored) {
  auto dag = softmax({2, 256});
  bool any_rfactor = false;
  for (const auto& id : ids(*dag)) any_rfactor |= id.find("maxval:rfactor") != std::string::npos;
  EXPECT_TRUE(any_rfactor);
  for (const auto& id : ids(*softmax({512, 256}))) {
    EXPECT_EQ(id.find("rfactor"), std::string::npos) << id;  // many rows: no need
  }
}

TEST(Sketch, WrongKnobCountIsRejectedWithAReason) {
  auto dag = matmul(16, 16, 16);
  auto sketches = generate_sketches(*dag);
  auto state = apply_candidate(*dag, sketches[0], {0});
  ASSERT_FALSE(state.ok());
  EXPECT_NE(state.error().message.find("has 5 knobs, the candidate gives 1"), std::string::npos);
}

}  // namespace
