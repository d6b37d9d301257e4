// The search loop: the one ask/tell loop that tunes a single task — in `tessera tune`, in the
// benchmarks and in the tests. Each batch: the agent proposes (propose_tagged, so every
// candidate names its source), the task measures (records written as results arrive), the agent
// observes; then a callback sees the progress and may stop the loop. It ends on the first stop
// rule that holds: trials, seconds, a target, the agent converged (done, or nothing to propose).
//
// A network's rounds (experiments/tune_network.cc) are not this loop: the allocator picks a
// task per round and the round is one batch of it.
#pragma once

#include <functional>

#include "agents/search_agent.h"
#include "env/tuning_task.h"

namespace tessera::agents {

struct StopRule {
  int trials = 0;              // the task's trials in all (those restored from records count)
  double seconds = 0;          // of tuning in all, seconds_before included; 0: no limit
  double seconds_before = 0;   // spent on the task by earlier runs (a resumed run)
  double target_gflops = 0;    // stop once the task's best reaches it; 0: none
};

struct LoopOptions {
  int batch_size = 64;
  // Before the agent's first batch, a task with no trials measures its default schedules
  // (env/default_candidates.h), credited to "default"; the agent observes them.
  bool defaults_first = false;
};

enum class StopReason { kTrials, kSeconds, kTarget, kConverged, kCallback };
const char* to_string(StopReason reason);

struct LoopProgress {
  int trials = 0;                // the task's, in all
  double elapsed_seconds = 0;    // seconds_before + this loop's
  double search_seconds = 0;     // this loop's: the agent proposing and observing
  double measure_seconds = 0;    // this loop's: building and timing
};

struct LoopResult {
  StopReason reason = StopReason::kTrials;
  LoopProgress progress;
};

// Called after each batch (the defaults' included); returning false stops the loop.
using BatchCallback = std::function<bool(const LoopProgress&)>;

LoopResult run_search_loop(SearchAgent& agent, env::TuningTask& task, const StopRule& stop,
                           const LoopOptions& options = {}, const BatchCallback& after_batch = {});

// The loop with one stop rule: `trials` more candidates measured (or the agent converged).
void run_search(SearchAgent& agent, env::TuningTask& task, int trials, int batch_size);

}  // namespace tessera::agents
