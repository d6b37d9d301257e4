// Vector loops whose width is not a power of two. The emitter splits them into chunks of
// power-of-two widths (emit_stmt.cc): LLVM widens an odd-width vector, and on AVX2 then builds
// its broadcasts lane by lane and reads them through gathers (MobileNetV2's 96->24 1x1 conv ran
// 12x slower at 12 lanes than at 8 on a Zen 3), and at one register and one lane (9 floats on
// AVX2) LLVM 19's X86 instruction selection put a wrong value in the last lane of a padded read
// once LICM had hoisted its masks. Width 9 of the row tile below failed on a Zen 3 before
// either fix; 14, 17 and 28 are widths ResNet's rows give.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "jit_test_util.h"
#include "schedule/ops.h"
#include "schedule/sketch.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

// The sketch fuzzer's failing candidate on a Zen 3, with the row width as a parameter: the pad
// inlined, the conv's row tile (width w) vectorized under a 2 x 3 reduction unroll.
std::vector<Step> row_tile_steps(int64_t width) {
  const std::string text = R"([
    {"stage":"pad","step":"compute_inline"},
    {"factors":[1],"loop":"w","stage":"Y","step":"split"},
    {"order":["n","c","h","w.0","w.1"],"stage":"Y","step":"reorder"},
    {"factors":[1,1,1],"loop":"n","stage":"conv","step":"split"},
    {"factors":[3,1,2],"loop":"c","stage":"conv","step":"split"},
    {"factors":[1,1,1],"loop":"h","stage":"conv","step":"split"},
    {"factors":[1,1,WIDTH],"loop":"w","stage":"conv","step":"split"},
    {"factors":[2],"loop":"r0","stage":"conv","step":"split"},
    {"factors":[3],"loop":"r1","stage":"conv","step":"split"},
    {"factors":[1],"loop":"r2","stage":"conv","step":"split"},
    {"order":["n.0","c.0","h.0","w.0","n.1","c.1","h.1","w.1","r0.0","r1.0","r2.0","n.2","c.2",
              "h.2","w.2","r0.1","r1.1","r2.1","n.3","c.3","h.3","w.3"],"stage":"conv","step":"reorder"},
    {"annotation":"vectorize","loop":"w.3","stage":"conv","step":"annotate"},
    {"max_step":512,"stage":"conv","step":"auto_unroll"}])";
  std::string json = text;
  json.replace(json.find("WIDTH"), 5, std::to_string(width));
  auto steps = steps_from_json(nlohmann::json::parse(json));
  EXPECT_TRUE(steps.ok()) << steps.error().message;
  return steps.ok() ? *steps : std::vector<Step>{};
}

class OddWidthRowTile : public ::testing::TestWithParam<int64_t> {};

TEST_P(OddWidthRowTile, PaddedConvMatchesTheReference) {
  const int64_t width = GetParam();
  Conv2dParams conv{1, 4, 9, width, 6, 3, 3};
  conv.pad_h = conv.pad_w = 1;
  auto dag = conv2d_bias_relu(conv);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  EXPECT_TRUE(MatchesReference(*dag, row_tile_steps(width)));
}

INSTANTIATE_TEST_SUITE_P(Widths, OddWidthRowTile, ::testing::Values(9, 14, 17, 28));

// A channels-last 1x1 conv with 24 output channels, its register tile 12 or 24 channels wide:
// the kernel is right and its vector code uses power-of-two widths only. Fails if a vectorized
// loop is emitted as one vector of its own width (<12 x float>, <24 x float> in the IR), or if
// a chunk reads or writes the wrong lanes (a chunk's first lane not added to its indices).
class OddWidthChannels : public ::testing::TestWithParam<int64_t> {};

TEST_P(OddWidthChannels, OneByOneConvUsesPowerOfTwoVectors) {
  const int64_t lanes = GetParam();
  Conv2dParams conv{1, 16, 4, 4, 24, 1, 1};
  conv.layout = Layout::kNHWC;
  auto dag = conv2d_bias_relu(conv);
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  const nlohmann::json knobs = {{"conv.n", {1, 1, 1, 1}},  {"conv.c", {4, 1, 1, 1}},
                                {"conv.h", {1, 1, 1, 4}},  {"conv.w", {24 / lanes, 1, 1, lanes}},
                                {"conv.r0", {1, 1}},       {"conv.r1", {1, 1}},
                                {"conv.r2", {1, 16}},      {"conv.parallel", 1},
                                {"conv.unroll", 512}};
  std::vector<Step> steps;
  for (const Sketch& sketch : generate_sketches(*dag)) {
    if (sketch.id != "conv:tile_fuse(Y)") continue;
    auto values = sketch.knobs.from_json(knobs);
    ASSERT_TRUE(values.ok()) << values.error().message;
    steps = sketch.steps(*values);
  }
  ASSERT_FALSE(steps.empty()) << "no conv:tile_fuse(Y) sketch";
  EXPECT_TRUE(MatchesReference(*dag, steps));

  State state(*dag);
  ASSERT_TRUE(state.apply_all(steps).ok());
  auto func = lower(state, "kernel");
  ASSERT_TRUE(func.ok()) << func.error().message;
  runtime::CompileOptions options;
  options.keep_llvm_ir = true;
  auto object = runtime::compile_object(*func, options);
  ASSERT_TRUE(object.ok()) << object.error().message;
  const std::regex vector_type("<([0-9]+) x float>");
  int vectors = 0;
  for (auto it = std::sregex_iterator(object->llvm_ir.begin(), object->llvm_ir.end(), vector_type);
       it != std::sregex_iterator(); ++it, ++vectors) {
    const int width = std::stoi((*it)[1].str());
    EXPECT_EQ(width & (width - 1), 0) << "a <" << width << " x float> vector in the kernel";
  }
  EXPECT_GT(vectors, 0) << "no vector code";
}

INSTANTIATE_TEST_SUITE_P(Lanes, OddWidthChannels, ::testing::Values(12, 24));

}  // namespace
}  // namespace tessera::testing
