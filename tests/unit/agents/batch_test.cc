// select_batch: model-ranked picks, with slots reserved per sketch filled first by that
// sketch's best-scored candidates.
#include "agents/batch.h"

#include <gtest/gtest.h>

#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents {
namespace {

struct Scored {
  std::unique_ptr<env::TuningTask> task;
  std::vector<std::pair<double, env::Candidate>> candidates;

  // 20 distinct candidates of each of the first two sketches; sketch 0's all score above
  // sketch 1's, and within a sketch later draws score higher.
  Scored() {
    env::TaskOptions options;
    options.measurer = std::make_shared<runtime::ReplaySimulator>();
    task = env::TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
    std::mt19937_64 rng(11);
    for (int sketch = 0; sketch < 2; ++sketch) {
      std::set<env::Candidate> seen;
      while (seen.size() < 20) {
        env::Candidate c = task->sample(rng, sketch);
        if (seen.insert(c).second) candidates.emplace_back((sketch == 0 ? 100.0 : 0.0) + seen.size(), c);
      }
    }
  }

  int of_sketch(const Batch& batch, int sketch) const {
    int n = 0;
    for (const env::Candidate& c : batch.candidates) n += c.sketch == sketch;
    return n;
  }
};

TEST(SelectBatch, TakesTheBestScoredAcrossSketches) {
  Scored s;
  ASSERT_GE(s.task->sketches().size(), 2u);
  std::mt19937_64 rng(1);
  Batch batch = select_batch(*s.task, s.candidates, 8, 0.0, rng);
  ASSERT_EQ(batch.candidates.size(), 8u);
  EXPECT_EQ(s.of_sketch(batch, 1), 0);
  EXPECT_TRUE(batch.random.empty());
}

TEST(SelectBatch, FillsReservedSlotsWithThatSketchsBest) {
  Scored s;
  std::mt19937_64 rng(1);
  Batch batch = select_batch(*s.task, s.candidates, 8, 0.0, rng, {{1, 3}});
  ASSERT_EQ(batch.candidates.size(), 8u);
  EXPECT_EQ(s.of_sketch(batch, 1), 3);
  EXPECT_EQ(s.of_sketch(batch, 0), 5);
  // Sketch 1's three are its top three (scores 18, 19, 20).
  std::set<env::Candidate> top(batch.candidates.begin(), batch.candidates.end());
  for (const auto& [score, c] : s.candidates) {
    if (c.sketch == 1) EXPECT_EQ(top.count(c) == 1, score > 17.5) << score;
  }
}

TEST(SelectBatch, SkipsMeasuredCandidatesInReservedSlots) {
  Scored s;
  // Measure sketch 1's best-scored: the reserved slots then go to its next best.
  env::Candidate best1;
  for (const auto& [score, c] : s.candidates) {
    if (c.sketch == 1 && score > 19.5) best1 = c;
  }
  s.task->measure({best1});
  std::mt19937_64 rng(1);
  Batch batch = select_batch(*s.task, s.candidates, 8, 0.0, rng, {{1, 2}});
  EXPECT_EQ(s.of_sketch(batch, 1), 2);
  EXPECT_EQ(std::count(batch.candidates.begin(), batch.candidates.end(), best1), 0);
}

}  // namespace
}  // namespace tessera::agents
