// select_batch: model-ranked picks, with slots reserved per sketch filled first by that
// sketch's best-scored candidates, and spread batches that hold one knob's variations of a
// point only when nothing else is left.
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
    if (c.sketch == 1) {
      EXPECT_EQ(top.count(c) == 1, score > 17.5) << score;
    }
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

int knobs_apart(const env::Candidate& a, const env::Candidate& b) {
  int n = 0;
  for (size_t k = 0; k < a.knobs.size(); ++k) n += a.knobs[k] != b.knobs[k];
  return n;
}

TEST(SelectBatch, SpreadSkipsOneKnobVariationsOfAChosenCandidateWhileOthersAreLeft) {
  Scored s;
  const env::Candidate centre = s.candidates.front().second;
  const schedule::KnobSpace& space = s.task->sketch(centre).knobs;
  // The centre scores best and its one-knob neighbours next; three candidates at least two
  // knobs from all of them score lowest.
  std::vector<std::pair<double, env::Candidate>> scored{{1000.0, centre}};
  std::vector<env::Candidate> near{centre};
  for (size_t k = 0; k < space.size(); ++k) {
    for (schedule::KnobValues& v : space.neighbours(centre.knobs, k)) {
      near.push_back({centre.sketch, std::move(v), ""});
      scored.emplace_back(900.0 - static_cast<double>(scored.size()), near.back());
    }
  }
  ASSERT_GE(near.size(), 4u);
  std::vector<env::Candidate> far;
  for (const auto& [score, c] : s.candidates) {
    if (c.sketch != centre.sketch || far.size() == 3) continue;
    bool apart = true;
    for (const env::Candidate& n : near) apart = apart && knobs_apart(c, n) >= 2;
    for (const env::Candidate& f : far) apart = apart && knobs_apart(c, f) >= 2;
    if (apart) far.push_back(c), scored.emplace_back(1.0, c);
  }
  ASSERT_EQ(far.size(), 3u);
  std::mt19937_64 rng(1);

  Batch plain = select_batch(*s.task, scored, 4, 0.0, rng);
  for (const env::Candidate& f : far) EXPECT_EQ(std::count(plain.candidates.begin(), plain.candidates.end(), f), 0);

  Batch spread = select_batch(*s.task, scored, 4, 0.0, rng, {}, true);
  ASSERT_EQ(spread.candidates.size(), 4u);
  EXPECT_EQ(spread.candidates.front(), centre);
  for (const env::Candidate& f : far) EXPECT_EQ(std::count(spread.candidates.begin(), spread.candidates.end(), f), 1);

  // With more slots than spread candidates, the neighbours fill the rest, best-scored first.
  Batch full = select_batch(*s.task, scored, 6, 0.0, rng, {}, true);
  ASSERT_EQ(full.candidates.size(), 6u);
  EXPECT_EQ(full.candidates[4], near[1]);
  EXPECT_EQ(full.candidates[5], near[2]);
}

}  // namespace
}  // namespace tessera::agents
