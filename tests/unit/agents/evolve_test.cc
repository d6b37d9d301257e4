// evolve / seed_population: the evolution both the evolutionary agent and harl's stalled-search
// share run. The population starts from the fastest measured candidates, every scored
// candidate comes back with its model score, and selection with mutation finds candidates the
// model scores above the whole starting population.
#include <gtest/gtest.h>

#include <algorithm>

#include "agents/evolutionary_search.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"
#include "tests/unit/linear_model.h"

namespace tessera::agents {
namespace {

std::unique_ptr<env::TuningTask> replay_task() {
  env::TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  return env::TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
}

TEST(SeedPopulation, StartsWithTheFastestMeasuredThenRandomDraws) {
  auto task = replay_task();
  std::mt19937_64 rng(5);
  std::vector<env::Candidate> drawn;
  for (int i = 0; i < 8; ++i) drawn.push_back(task->sample(rng));
  task->measure(drawn);
  std::vector<const env::Measurement*> ok;
  for (const auto& [c, m] : task->measurements()) {
    if (m.ok()) ok.push_back(&m);
  }
  ASSERT_GE(ok.size(), 4u);
  std::sort(ok.begin(), ok.end(), [](auto* a, auto* b) { return a->seconds() < b->seconds(); });

  EvolutionOptions options{.population = 10, .init_from_best = 0.3};
  std::vector<env::Candidate> population = seed_population(*task, options, rng);
  ASSERT_EQ(population.size(), 10u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(population[i], ok[i]->candidate) << i;
  // The rest are draws, not the slower measured ones.
  EXPECT_EQ(std::count(population.begin() + 3, population.end(), ok[3]->candidate), 0);
}

TEST(SeedPopulation, TakesDrawsAlreadyMadeBeforeDrawingNew) {
  // harl's evolved source hands in the screened source's draws: they fill the random part
  // first, in the order given, and only the shortfall is drawn anew. Ignoring them (lowering
  // the population again) or letting them displace the measured bests fails here.
  auto task = replay_task();
  std::mt19937_64 rng(3);
  std::vector<env::Candidate> measured;
  for (int i = 0; i < 4; ++i) measured.push_back(task->sample(rng));
  task->measure(measured);
  std::vector<env::Candidate> drawn;
  for (int i = 0; i < 5; ++i) drawn.push_back(task->sample(rng));

  EvolutionOptions options{.population = 10, .init_from_best = 0.2};
  const std::vector<env::Candidate> population = seed_population(*task, options, rng, drawn);
  ASSERT_EQ(population.size(), 10u);
  for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(task->measured(population[i])) << i;
  for (size_t i = 0; i < drawn.size(); ++i) EXPECT_EQ(population[2 + i], drawn[i]) << i;

  options.population = 4;  // more draws than room (and 4 x 0.2 rounds down to no bests): the first four
  const std::vector<env::Candidate> small = seed_population(*task, options, rng, drawn);
  ASSERT_EQ(small.size(), 4u);
  for (size_t i = 0; i < small.size(); ++i) EXPECT_EQ(small[i], drawn[i]) << i;
}

TEST(Evolve, ReturnsEveryScoredCandidateAndBreedsAboveItsStart) {
  auto task = replay_task();
  env::ModelFeeder feeder{std::make_shared<test_support::LinearModel>()};
  std::mt19937_64 rng(9);
  EvolutionOptions options{.population = 64, .generations = 4};
  std::vector<env::Candidate> start;
  for (int i = 0; i < options.population; ++i) start.push_back(task->sample(rng));
  const std::vector<float> start_scores = feeder.score(*task, start);
  const float start_best = *std::max_element(start_scores.begin(), start_scores.end());

  EvolutionRound round;
  const std::map<env::Candidate, double> seen = evolve(*task, feeder, start, options, rng, round);
  for (size_t i = 0; i < start.size(); ++i) {
    if (start_scores[i] == env::kUnscorable) continue;
    ASSERT_TRUE(seen.count(start[i])) << i;
    EXPECT_FLOAT_EQ(static_cast<float>(seen.at(start[i])), start_scores[i]);
  }
  EXPECT_GT(seen.size(), start.size()) << "mutation made candidates the start did not hold";
  EXPECT_EQ(round.scored + round.invalid, options.population * (options.generations + 1));
  double best = -1e30;
  for (const auto& [c, score] : seen) best = std::max(best, score);
  EXPECT_GT(best, start_best) << "selection and mutation found nothing the model scores higher";
}

}  // namespace
}  // namespace tessera::agents
