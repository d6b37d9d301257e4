// The batch plan: compose_batch honours each source's quota even against better-scored
// candidates of other sources, fills what a source lacks from the open rest, tags ε picks
// "random" and never re-proposes a measured candidate; the source bandit's quotas give each
// source a slot and follow its rewards, and a source that made all of a batch's improvement is
// rewarded 1; a sketch keeps its slots while it has few measurements or stays within the margin.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "agents/rl/batch_plan.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents::rl {
namespace {

std::unique_ptr<env::TuningTask> simulated_matmul() {
  env::TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  return env::TuningTask::create(*schedule::matmul(96, 64, 80), options).value();
}

// `n` distinct random candidates of `source`, scored `base` + i.
Scored drawn(const env::TuningTask& task, std::mt19937_64& rng, const std::string& source, int n, double base,
             std::set<env::Candidate>& seen) {
  Scored out;
  while (static_cast<int>(out.size()) < n) {
    env::Candidate c = task.sample(rng);
    if (!seen.insert(c).second) continue;
    c.source = source;
    out.emplace_back(base + static_cast<double>(out.size()), c);
  }
  return out;
}

std::map<std::string, int> count_sources(const std::vector<env::Candidate>& batch) {
  std::map<std::string, int> n;
  for (const env::Candidate& c : batch) ++n[c.source];
  return n;
}

TEST(ComposeBatch, QuotasWinOverBetterScoresOfOtherSources) {
  auto task = simulated_matmul();
  std::mt19937_64 rng(3);
  std::set<env::Candidate> seen;
  Scored pool = drawn(*task, rng, "climb", 40, 1000, seen);  // every climb scores above every jump
  for (auto& entry : drawn(*task, rng, "jump", 40, 0, seen)) pool.push_back(entry);
  BatchPlan plan;
  plan.count = 16;
  plan.source_quotas = {{"jump", 5}};
  const Batch batch = compose_batch(*task, pool, plan, rng);
  ASSERT_EQ(batch.candidates.size(), 16u);
  EXPECT_EQ(count_sources(batch.candidates)["jump"], 5) << "the quota, though the open rest prefers climbs";
  EXPECT_EQ(count_sources(batch.candidates)["climb"], 11);
  // The jumps taken are the jump source's best-scored five.
  std::set<double> jump_scores;
  for (const auto& [score, c] : pool) {
    if (c.source == "jump" && std::count(batch.candidates.begin(), batch.candidates.end(), c)) jump_scores.insert(score);
  }
  EXPECT_EQ(*jump_scores.begin(), 35.0);

  // Without the quota the scores decide alone.
  plan.source_quotas.clear();
  EXPECT_EQ(count_sources(compose_batch(*task, pool, plan, rng).candidates).count("jump"), 0u);
}

TEST(ComposeBatch, ShortSourcesLeaveTheirSlotsToTheRestAndEpsilonIsTaggedRandom) {
  auto task = simulated_matmul();
  std::mt19937_64 rng(5);
  std::set<env::Candidate> seen;
  Scored pool = drawn(*task, rng, "scan", 2, 0, seen);  // only two, against a quota of 6
  for (auto& entry : drawn(*task, rng, "screened", 30, 10, seen)) pool.push_back(entry);
  // A measured candidate of the scan source, best-scored of all: never proposed again.
  env::Candidate measured = task->sample(rng);
  while (seen.count(measured)) measured = task->sample(rng);
  task->measure({measured});
  measured.source = "scan";
  pool.emplace_back(1e6, measured);
  BatchPlan plan;
  plan.count = 20;
  plan.source_quotas = {{"scan", 6}};
  plan.epsilon = 0.25;
  const Batch batch = compose_batch(*task, pool, plan, rng);
  ASSERT_EQ(batch.candidates.size(), 20u);
  auto n = count_sources(batch.candidates);
  EXPECT_EQ(n["scan"], 2);
  EXPECT_EQ(n["random"], 5) << "ε of the whole batch";
  EXPECT_EQ(static_cast<int>(batch.random.size()), 5);
  EXPECT_EQ(n["screened"], 13);
  for (const env::Candidate& c : batch.candidates) EXPECT_FALSE(task->measured(c));
}

TEST(SourcePlanner, GivesEverySourceASlotAndFollowsItsRewards) {
  SourcePlanner planner({"climb", "ppo", "evolved"}, 16, 0.1);
  auto quotas = planner.quotas(12);
  for (const auto& [source, q] : quotas) EXPECT_EQ(q, 4) << source << ": no plays yet, an even split";
  EXPECT_EQ(planner.quotas(2).back().second, 0) << "fewer slots than sources: the first ones get one";

  // Batches in which every improvement came from "evolved".
  auto measured = [](const std::string& source, double seconds) {
    env::Measurement m;
    m.candidate.source = source;
    m.result.costs = {seconds};
    return m;
  };
  for (int round = 0; round < 6; ++round) {
    planner.reward({measured("climb", 1.1), measured("ppo", 1.2), measured("evolved", 0.5)}, 1.0);
  }
  EXPECT_DOUBLE_EQ(planner.bandit().mean(2), 1.0);
  EXPECT_DOUBLE_EQ(planner.bandit().mean(0), 0.0);
  quotas = planner.quotas(12);
  EXPECT_GE(quotas[0].second, 1);
  EXPECT_GT(quotas[2].second, quotas[0].second + quotas[1].second);
  int total = 0;
  for (const auto& [source, q] : quotas) total += q;
  EXPECT_EQ(total, 12);

  // A batch without a gain: half of how close each came to the best before.
  SourcePlanner stalled({"climb"}, 16, 0.1);
  stalled.reward({measured("climb", 2.0)}, 1.0);
  EXPECT_DOUBLE_EQ(stalled.bandit().mean(0), 0.25);
}

TEST(ContendingSketches, ATrailingSketchLeavesOnceMeasuredEnough) {
  auto task = simulated_matmul();
  const int sketches = static_cast<int>(task->sketches().size());
  ASSERT_GE(sketches, 2);
  std::mt19937_64 rng(5);
  std::vector<env::Candidate> batch;
  for (int s = 0; s < sketches; ++s) {
    for (int i = 0; i < 20; ++i) batch.push_back(task->sample(rng, s));
  }
  task->measure(batch);
  std::vector<double> fastest(static_cast<size_t>(sketches), 0.0);
  std::vector<int> measured(static_cast<size_t>(sketches), 0);
  for (const auto& [candidate, m] : task->measurements()) {
    ++measured[static_cast<size_t>(m.candidate.sketch)];
    if (m.ok()) fastest[static_cast<size_t>(m.candidate.sketch)] = std::max(fastest[static_cast<size_t>(m.candidate.sketch)], m.throughput());
  }
  const auto slowest = static_cast<int>(std::min_element(fastest.begin(), fastest.end()) - fastest.begin());
  const double top = *std::max_element(fastest.begin(), fastest.end());
  ASSERT_LT(fastest[static_cast<size_t>(slowest)], top) << "the landscape needs a trailing sketch";
  ASSERT_GE(measured[static_cast<size_t>(slowest)], 8);
  // A margin just above the slowest sketch's share of the task's fastest.
  const double margin = 0.5 * (fastest[static_cast<size_t>(slowest)] / top + 1.0);
  std::vector<int> expected;
  for (int s = 0; s < sketches; ++s) {
    if (fastest[static_cast<size_t>(s)] >= margin * top) expected.push_back(s);
  }
  // Fails if the margin is ignored or compared with something other than the task's fastest.
  EXPECT_EQ(contending_sketches(*task, 8, margin), expected);
  // Below the trial floor every sketch contends. The floor sits above every sketch's count and
  // below the task's: fails if trials are counted across the task instead of per sketch.
  std::vector<int> all(static_cast<size_t>(sketches));
  std::iota(all.begin(), all.end(), 0);
  const int floor = *std::max_element(measured.begin(), measured.end()) + 1;
  ASSERT_LT(floor, static_cast<int>(task->measurements().size()));
  EXPECT_EQ(contending_sketches(*task, floor, margin), all);
  EXPECT_EQ(contending_sketches(*task, 8, 0.0), all);

  std::map<int, int> split = split_evenly({0, 2}, 5);
  EXPECT_EQ(split[0], 3);  // the remainder goes to the first
  EXPECT_EQ(split[2], 2);
  EXPECT_TRUE(split_evenly({}, 5).empty());
}

}  // namespace
}  // namespace tessera::agents::rl
