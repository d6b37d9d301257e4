// Random and Droplet search end to end on a small matmul, through the builder and the
// isolated runner: trials are counted, nothing is measured twice, Droplet starts from the
// best and converges, every record names a sketch and knobs that replay, slow candidates are
// timed once and the measurer counts its seconds by phase.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "agents/droplet_search.h"
#include "agents/evolutionary_search.h"
#include "agents/random_search.h"
#include "agents/search_loop.h"
#include "runtime/records.h"
#include "schedule/ops.h"
#include "schedule/step_json.h"

namespace tessera::testing {
namespace {

// Cheaper trials: a candidate whose warm-up or first repeat is more than give_up_ratio times
// the task's best so far is timed once; every other one gets its repeats until three of four
// are slower than that best, when its median could no longer beat it (fails if the limit or the
// best is not passed to the worker, is applied against the wrong best, or cuts a candidate that
// could still win).
TEST(Search, CandidatesFarSlowerThanTheBestAreTimedOnce) {
  auto dag = schedule::matmul(64, 64, 64);
  env::TaskOptions options;
  options.measure.repeat = 4;
  options.measure.min_repeat_ms = 2;
  options.measure.give_up_ratio = 1.5;
  std::vector<runtime::MeasureResult> in_order;
  options.on_measured = [&](const env::Measurement& m) { in_order.push_back(m.result); };
  auto task = env::TuningTask::create(*dag, options);
  ASSERT_TRUE(task.ok()) << task.error().message;
  agents::RandomSearch random(11);
  agents::run_search(random, **task, 24, 8);
  double best = 0;
  int gave_up = 0, cut = 0;
  for (const runtime::MeasureResult& r : in_order) {
    if (r.error != runtime::MeasureError::kNone) continue;
    if (best == 0) {
      EXPECT_EQ(r.costs.size(), 4u) << "the first correct candidate has no best to lose against";
    } else if (r.costs.size() == 1) {
      ++gave_up;
      EXPECT_GT(r.costs[0], 1.5 * best);
    } else {
      EXPECT_LE(r.costs[0], 1.5 * best);
      const auto slower = std::count_if(r.costs.begin(), r.costs.end(), [&](double c) { return c > best; });
      if (r.costs.size() < 4) {
        ++cut;
        EXPECT_EQ(r.costs.size(), 3u);
        EXPECT_EQ(slower, 3);
      } else {
        EXPECT_LE(std::count_if(r.costs.begin(), r.costs.end() - 1, [&](double c) { return c > best; }), 2);
      }
    }
    best = best == 0 ? r.median() : std::min(best, r.median());
  }
  EXPECT_GT(gave_up, 0) << "24 random matmul schedules and none 1.5x slower than the best: the test did not test";
  EXPECT_GT(cut, 0) << "24 random matmul schedules and none within 1.5x of the best but slower: the test did not test";
  // The measurer's phase seconds: every build and every run counted (fails if a phase is not
  // timed, or only one batch or candidate of it is: a batch lasts at least its slowest compile,
  // which may run beside the timing (measure.compile_while_timing), and each timed candidate's
  // run at least its warm-up, the short one back to back; a batch's first candidate is always
  // waited for).
  const runtime::PhaseSeconds phases = (*task)->phase_seconds();
  double slowest_compile = 0;
  int timed = 0;
  for (const runtime::MeasureResult& r : in_order) {
    slowest_compile = std::max(slowest_compile, r.compile_seconds);
    timed += !r.costs.empty();
  }
  EXPECT_GT(slowest_compile, 0);
  EXPECT_GT(phases.build, 0);
  EXPECT_GE(phases.build + phases.run, slowest_compile);
  EXPECT_GE(phases.run, timed * std::min(options.measure.min_warmup_ms, options.measure.back_to_back_warmup_ms) * 1e-3);
}

TEST(Search, RandomThenDropletOnASmallMatmul) {
  const std::string records = (std::filesystem::temp_directory_path() /
                               ("tessera_search_" + std::to_string(::getpid()) + ".jsonl")).string();
  std::filesystem::remove(records);
  auto dag = schedule::matmul(16, 32, 8);
  env::TaskOptions options;
  options.records_path = records;
  options.measure.min_repeat_ms = 2;
  auto task = env::TuningTask::create(*dag, options);
  ASSERT_TRUE(task.ok()) << task.error().message;

  agents::RandomSearch random(7);
  agents::run_search(random, **task, 12, 6);
  EXPECT_EQ((*task)->trials(), 12);
  ASSERT_TRUE((*task)->best().has_value());
  const double random_best = (*task)->best()->seconds();

  agents::DropletSearch droplet(7);
  agents::run_search(droplet, **task, 400, 8);
  EXPECT_TRUE(droplet.done()) << "Droplet should converge on a space this small";
  EXPECT_GT((*task)->trials(), 12);
  EXPECT_LE((*task)->best()->seconds(), random_best);

  auto file = runtime::read_records(records);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->warnings.empty());
  ASSERT_EQ(static_cast<int>(file->records.size()), (*task)->trials());
  std::set<std::string> identities;
  for (const auto& r : file->records) {
    EXPECT_TRUE(identities.insert(r.sketch + r.knobs.dump()).second) << "measured twice";
    const schedule::Sketch* sketch = nullptr;
    for (const auto& s : (*task)->sketches()) {
      if (s.id == r.sketch) sketch = &s;
    }
    ASSERT_NE(sketch, nullptr) << r.sketch;
    auto knobs = sketch->knobs.from_json(r.knobs);
    ASSERT_TRUE(knobs.ok()) << knobs.error().message;
    EXPECT_EQ(schedule::steps_to_json(sketch->steps(*knobs)), r.steps);
  }
  std::filesystem::remove(records);
}

// Scores by one feature and counts what it was taught.
class CountingModel : public env::CostModel {
 public:
  std::string name() const override { return "counting"; }
  void add(const std::vector<env::ProxySample>& samples) override {
    added += static_cast<int>(samples.size());
    for (const auto& s : samples) EXPECT_FALSE(s.group.empty());
  }
  void train() override { ++trainings; }
  std::vector<float> predict(const std::vector<std::vector<float>>& f) override {
    std::vector<float> out;
    for (const auto& row : f) out.push_back(row.at(1));
    return out;
  }
  int added = 0, trainings = 0;
};

TEST(Search, EvolutionaryMeasuresDistinctModelRankedBatchesAndFeedsTheModel) {
  auto dag = schedule::matmul(16, 32, 8);
  env::TaskOptions options;
  options.measure.min_repeat_ms = 1;
  auto task = env::TuningTask::create(*dag, options);
  ASSERT_TRUE(task.ok()) << task.error().message;
  auto model = std::make_shared<CountingModel>();
  agents::EvolutionarySearch evo(model, 5, {.population = 128, .generations = 2, .eps_greedy = 0.25});

  auto first = evo.propose(**task, 8);
  ASSERT_EQ(first.size(), 8u);
  EXPECT_EQ(model->trainings, 0) << "nothing measured yet, nothing to learn";
  EXPECT_EQ(evo.last_round().scored + evo.last_round().invalid, 128 * 3);
  (*task)->measure(first);

  auto second = evo.propose(**task, 8);
  EXPECT_EQ(model->added, 8) << "every measurement reaches the model once";
  EXPECT_EQ(model->trainings, 1);
  std::set<env::Candidate> distinct(second.begin(), second.end());
  EXPECT_EQ(distinct.size(), second.size());
  for (const auto& c : second) EXPECT_FALSE((*task)->measured(c)) << "proposed a measured candidate";
  (*task)->measure(second);
  evo.propose(**task, 8);
  EXPECT_EQ(model->added, 16);
  EXPECT_EQ(model->trainings, 2);
}

}  // namespace
}  // namespace tessera::testing
