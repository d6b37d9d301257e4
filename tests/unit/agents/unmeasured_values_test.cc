// unmeasured_values: every jump differs from its centre in one knob, on a value no measured
// candidate of the sketch holds there, and every such value is offered once.
#include "agents/unmeasured_values.h"

#include <gtest/gtest.h>

#include <set>

#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents {
namespace {

TEST(UnmeasuredValues, JumpsOneKnobToEachValueNothingMeasuredHolds) {
  env::TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  auto task = env::TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
  std::mt19937_64 rng(4);
  std::vector<env::Candidate> drawn;
  for (int i = 0; i < 12; ++i) drawn.push_back(task->sample(rng, 0));
  task->measure(drawn);
  const env::Candidate centre = drawn.front();
  const std::vector<schedule::Knob>& knobs = task->sketch(centre).knobs.knobs();
  std::vector<std::set<int>> held(knobs.size());
  for (const auto& [c, m] : task->measurements()) {
    for (size_t k = 0; k < knobs.size(); ++k) held[k].insert(c.knobs[k]);
  }
  size_t expected = 0;
  for (size_t k = 0; k < knobs.size(); ++k) expected += knobs[k].domain.size() - held[k].size();
  ASSERT_GT(expected, 0u) << "twelve draws already hold every value of every knob";

  const std::vector<env::Candidate> jumps = unmeasured_values(*task, {centre, centre});
  EXPECT_EQ(jumps.size(), expected) << "each unmeasured value once, the repeated centre adding none";
  for (const env::Candidate& jump : jumps) {
    ASSERT_EQ(jump.sketch, centre.sketch);
    int changed = 0;
    for (size_t k = 0; k < knobs.size(); ++k) {
      if (jump.knobs[k] == centre.knobs[k]) continue;
      ++changed;
      EXPECT_EQ(held[k].count(jump.knobs[k]), 0u) << "knob " << knobs[k].name << " took a measured value";
    }
    EXPECT_EQ(changed, 1);
  }
}

}  // namespace
}  // namespace tessera::agents
