// The one search loop (agents/search_loop.h) on the replay simulator: each stop rule ends it
// where it says, batches never overshoot the trial budget, the default schedules go first when
// asked (credited "default"), and the per-batch callback sees every batch and can stop it.
#include <gtest/gtest.h>

#include "agents/random_search.h"
#include "agents/search_loop.h"
#include "env/default_candidates.h"
#include "runtime/replay_simulator.h"
#include "schedule/ops.h"

namespace tessera::agents {
namespace {

std::unique_ptr<env::TuningTask> simulated_matmul() {
  env::TaskOptions options;
  options.measurer = std::make_shared<runtime::ReplaySimulator>();
  return env::TuningTask::create(*schedule::matmul(64, 48, 32), options).value();
}

// A random search that says it has converged from the start.
class Converged : public RandomSearch {
 public:
  using RandomSearch::RandomSearch;
  bool done() const override { return true; }
};

// Bug caught: a last batch that overshoots the budget (10 trials in batches of 4 is 4 + 4 + 2),
// or a callback skipped for some batch.
TEST(SearchLoop, StopsAtTheTrialBudgetExactlyWithACallbackPerBatch) {
  auto task = simulated_matmul();
  RandomSearch random(1);
  std::vector<int> seen;
  StopRule stop;
  stop.trials = 10;
  const LoopResult r = run_search_loop(random, *task, stop, {.batch_size = 4}, [&](const LoopProgress& p) {
    seen.push_back(p.trials);
    return true;
  });
  EXPECT_EQ(r.reason, StopReason::kTrials);
  EXPECT_EQ(task->trials(), 10);
  EXPECT_EQ(seen, (std::vector<int>{4, 8, 10}));
  EXPECT_EQ(r.progress.trials, 10);
  EXPECT_GT(r.progress.measure_seconds, 0);
}

// Bug caught: defaults measured after the agent's first batch, not credited as such, or counted
// past the budget; and a loop that forgets the task's restored trials (stop.trials is the total).
TEST(SearchLoop, DefaultSchedulesGoFirstWithinTheBudget) {
  auto task = simulated_matmul();
  const size_t defaults = env::default_candidates(*task).size();
  ASSERT_GT(defaults, 0u) << "a matmul has default schedules";
  RandomSearch random(2);
  std::vector<int> seen;
  StopRule stop;
  stop.trials = static_cast<int>(defaults) + 3;
  run_search_loop(random, *task, stop, {.batch_size = 8, .defaults_first = true}, [&](const LoopProgress& p) {
    seen.push_back(p.trials);
    return true;
  });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], static_cast<int>(defaults));
  EXPECT_EQ(task->trials(), static_cast<int>(defaults) + 3);
  EXPECT_EQ(task->credit().sources().at("default").measured, static_cast<int>(defaults));
  EXPECT_EQ(task->credit().sources().at("random").measured, 3);
  // Run again on the same task: nothing is left of the budget, and the defaults are not re-run.
  const LoopResult again = run_search_loop(random, *task, stop, {.defaults_first = true});
  EXPECT_EQ(again.reason, StopReason::kTrials);
  EXPECT_EQ(task->trials(), static_cast<int>(defaults) + 3);
}

// Bug caught: a stop rule checked only after a batch (a task over its time or at its target
// measuring one more batch), a converged agent asked anyway, a callback's stop ignored.
TEST(SearchLoop, EachStopRuleEndsTheLoopWithItsReason) {
  {
    auto task = simulated_matmul();
    RandomSearch random(3);
    StopRule stop;
    stop.trials = 100;
    stop.seconds = 5;
    stop.seconds_before = 5;  // a resumed run that already spent its time
    EXPECT_EQ(run_search_loop(random, *task, stop).reason, StopReason::kSeconds);
    EXPECT_EQ(task->trials(), 0);
  }
  {
    auto task = simulated_matmul();
    RandomSearch random(3);
    StopRule stop;
    stop.trials = 100;
    stop.target_gflops = 1e-9;  // any correct candidate reaches it
    const LoopResult r = run_search_loop(random, *task, stop, {.batch_size = 4});
    EXPECT_EQ(r.reason, StopReason::kTarget);
    EXPECT_EQ(task->trials(), 4);
  }
  {
    auto task = simulated_matmul();
    Converged converged(3);
    StopRule stop;
    stop.trials = 100;
    EXPECT_EQ(run_search_loop(converged, *task, stop).reason, StopReason::kConverged);
    EXPECT_EQ(task->trials(), 0);
  }
  {
    auto task = simulated_matmul();
    RandomSearch random(3);
    StopRule stop;
    stop.trials = 100;
    int calls = 0;
    const LoopResult r = run_search_loop(random, *task, stop, {.batch_size = 4}, [&](const LoopProgress&) {
      return ++calls < 2;
    });
    EXPECT_EQ(r.reason, StopReason::kCallback);
    EXPECT_EQ(task->trials(), 8);
  }
}

}  // namespace
}  // namespace tessera::agents
