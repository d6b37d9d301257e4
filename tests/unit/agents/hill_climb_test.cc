// hill_climb: greedy ascent on a fixed model ends at a local optimum of that model, scores each
// neighbour once, and respects its limits.
#include "agents/hill_climb.h"

#include <gtest/gtest.h>

#include "runtime/replay_simulator.h"
#include "schedule/ops.h"
#include "tests/unit/linear_model.h"

namespace tessera::agents {
namespace {

using test_support::LinearModel;

struct Fixture {
  std::unique_ptr<env::TuningTask> task;
  env::ModelFeeder feeder{std::make_shared<LinearModel>()};
  std::map<env::Candidate, double> scored;
  std::vector<env::Candidate> start;

  Fixture() {
    env::TaskOptions options;
    options.measurer = std::make_shared<runtime::ReplaySimulator>();
    task = env::TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
    std::mt19937_64 rng(3);
    start.push_back(task->sample(rng));
  }
};

TEST(HillClimb, EndsAtALocalOptimumOfTheModel) {
  Fixture f;
  HillClimbStats stats = hill_climb(*f.task, f.feeder, f.start, 1000, f.scored);
  EXPECT_GT(stats.moves, 0);
  EXPECT_EQ(stats.scored + 1, static_cast<int>(f.scored.size()));  // the start, and nothing refused here
  // Every step went to its best neighbour, so the climb stopped at a best entry (ties aside)
  // after scoring its whole neighbourhood: a local optimum, not a cut-off.
  double top = -1e30;
  for (const auto& [c, score] : f.scored) top = std::max(top, score);
  int ends = 0;
  for (const auto& [c, score] : f.scored) {
    if (score < top) continue;
    bool whole = true;
    for (auto& values : f.task->sketch(c).knobs.neighbours(c.knobs)) whole &= f.scored.count({c.sketch, values}) > 0;
    ends += whole;
  }
  EXPECT_GE(ends, 1);
}

TEST(HillClimb, KeepsToItsLimits) {
  Fixture none;
  EXPECT_EQ(hill_climb(*none.task, none.feeder, {}, 4, none.scored).scored, 0);
  EXPECT_TRUE(none.scored.empty());

  Fixture one_step;
  HillClimbStats stats = hill_climb(*one_step.task, one_step.feeder, one_step.start, 1, one_step.scored);
  EXPECT_LE(stats.moves, 1);
  Fixture many;
  HillClimbStats longer = hill_climb(*many.task, many.feeder, many.start, 1000, many.scored);
  EXPECT_GT(longer.moves, 1);
  EXPECT_GT(longer.scored, stats.scored);  // the one-step climb stopped after one neighbourhood
}

TEST(ScanTwoMoves, ScoresNeighboursOfNeighboursOnce) {
  Fixture f;
  const env::Candidate& centre = f.start[0];
  const schedule::KnobSpace& space = f.task->sketch(centre).knobs;
  const int scanned = scan_two_moves(*f.task, f.feeder, f.start, f.scored);
  // Every one-move neighbour, and a neighbour's neighbour, are scored; more than one ring.
  const auto ring = space.neighbours(centre.knobs);
  ASSERT_FALSE(ring.empty());
  for (const auto& one : ring) EXPECT_EQ(f.scored.count({centre.sketch, one}), 1u);
  const auto second = space.neighbours(ring.front());
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(f.scored.count({centre.sketch, second.back()}), 1u);
  EXPECT_GT(scanned, static_cast<int>(ring.size()));
  EXPECT_EQ(scanned, static_cast<int>(f.scored.size()));
  // Nothing is scored twice.
  EXPECT_EQ(scan_two_moves(*f.task, f.feeder, f.start, f.scored), 0);
}

}  // namespace
}  // namespace tessera::agents
