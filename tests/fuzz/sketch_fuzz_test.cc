// Sketch fuzzing: for every op of the library at two shapes, candidates sampled uniformly
// from every sketch's knob space (plus mutations of them) are applied, lowered, compiled and
// compared with the reference. Candidates must be valid by construction: a rejection fails
// the test with its reason. TESSERA_SKETCH_SAMPLES (default 200 per op and shape) scales it.
#include <gtest/gtest.h>

#include <cstdlib>

#include "jit_test_util.h"
#include "op_cases.h"
#include "schedule/sketch.h"

namespace tessera::testing {
namespace {

using namespace tessera::schedule;

std::vector<OpCase> shapes_for_sketches() {
  std::vector<OpCase> cases = op_cases();
  Conv2dParams conv{1, 8, 10, 12, 16, 3, 3};
  conv.pad_h = conv.pad_w = 1;
  cases.push_back({"matmul_64", [] { return matmul(64, 48, 32); }});
  cases.push_back({"conv2d_bias_relu_16", [=] { return conv2d_bias_relu(conv); }});
  cases.push_back({"dense_bias_gelu_32", [] { return dense_bias_gelu(16, 32, 24); }});
  cases.push_back({"softmax_2x128", [] { return softmax({2, 128}); }});
  cases.push_back({"layer_norm_3x64", [] { return layer_norm({3, 64}); }});
  return cases;
}

class SketchFuzz : public ::testing::TestWithParam<OpCase> {};

TEST_P(SketchFuzz, SampledCandidatesMatchTheReference) {
  auto dag = GetParam().make();
  ASSERT_TRUE(dag.ok()) << dag.error().message;
  std::vector<Sketch> sketches = generate_sketches(*dag);
  ASSERT_FALSE(sketches.empty());
  const char* env = std::getenv("TESSERA_SKETCH_SAMPLES");
  const int samples = env ? std::atoi(env) : 200;
  std::mt19937_64 rng(42);
  int failures = 0;
  for (int i = 0; i < samples && failures < 3; ++i) {
    const Sketch& sketch = sketches[static_cast<size_t>(i) % sketches.size()];
    KnobValues values = sketch.knobs.sample(rng);
    if (i % 2) values = sketch.knobs.mutate(values, rng);
    auto state = apply_candidate(*dag, sketch, values);
    if (!state) {
      ++failures;
      ADD_FAILURE() << state.error().message << "\nknobs: " << sketch.knobs.to_json(values).dump();
      continue;
    }
    auto result = MatchesReference(*dag, sketch.steps(values));
    if (!result) {
      ++failures;
      ADD_FAILURE() << "sketch " << sketch.id << " knobs " << sketch.knobs.to_json(values).dump()
                    << "\n" << result.message();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, SketchFuzz, ::testing::ValuesIn(shapes_for_sketches()),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.label; });

}  // namespace
}  // namespace tessera::testing
