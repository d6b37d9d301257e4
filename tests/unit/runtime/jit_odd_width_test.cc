// Vector loops wider than one register whose width is not a power of two: a 3x3 conv's whole
// row as the vector, its padding read through masked loads. At one register and one lane (9
// floats on AVX2, 17 on AVX-512) LLVM 19's X86 instruction selection put a wrong value in the
// last lane once LICM had hoisted the masks (a Zen 3; the emitter now leaves that width scalar,
// emit_stmt.cc). Without that, width 9 fails here on an AVX2 machine; on an AVX-512 one, 17 is
// the same shape of vector. 14 and 28 are widths ResNet's rows give, kept as vectors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "jit_test_util.h"
#include "schedule/ops.h"

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

}  // namespace
}  // namespace tessera::testing
