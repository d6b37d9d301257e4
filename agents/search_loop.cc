// The one single-task search loop (see search_loop.h).
#include "agents/search_loop.h"

#include <algorithm>
#include <chrono>

#include "env/default_candidates.h"

namespace tessera::agents {

const char* to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kTrials: return "trials";
    case StopReason::kSeconds: return "seconds";
    case StopReason::kTarget: return "target";
    case StopReason::kConverged: return "converged";
    case StopReason::kCallback: return "stopped";
  }
  return "?";
}

LoopResult run_search_loop(SearchAgent& agent, env::TuningTask& task, const StopRule& stop,
                           const LoopOptions& options, const BatchCallback& after_batch) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  LoopResult result;
  LoopProgress& p = result.progress;
  auto update = [&] {
    p.trials = task.trials();
    p.elapsed_seconds = stop.seconds_before + since(start);
  };
  // Measures `batch` and tells the agent; false when the callback stops the loop.
  auto measure = [&](const std::vector<env::Candidate>& batch) {
    auto t = Clock::now();
    auto measured = task.measure(batch);
    p.measure_seconds += since(t);
    t = Clock::now();
    agent.observe(task, measured);
    p.search_seconds += since(t);
    update();
    return !after_batch || after_batch(p);
  };
  update();
  if (options.defaults_first && task.trials() == 0 && stop.trials > 0) {
    std::vector<env::Candidate> defaults = env::default_candidates(task);
    if (defaults.size() > static_cast<size_t>(stop.trials)) defaults.resize(static_cast<size_t>(stop.trials));
    if (!defaults.empty() && !measure(defaults)) {
      result.reason = StopReason::kCallback;
      return result;
    }
  }
  while (true) {
    if (task.trials() >= stop.trials) {
      result.reason = StopReason::kTrials;
      break;
    }
    if (stop.seconds > 0 && p.elapsed_seconds >= stop.seconds) {
      result.reason = StopReason::kSeconds;
      break;
    }
    if (stop.target_gflops > 0 && task.best_gflops() >= stop.target_gflops) {
      result.reason = StopReason::kTarget;
      break;
    }
    if (agent.done()) {
      result.reason = StopReason::kConverged;
      break;
    }
    const int want = std::min(options.batch_size, stop.trials - task.trials());
    auto t = Clock::now();
    auto candidates = propose_tagged(agent, task, want);
    p.search_seconds += since(t);
    if (candidates.empty()) {
      result.reason = StopReason::kConverged;
      break;
    }
    if (!measure(candidates)) {
      result.reason = StopReason::kCallback;
      break;
    }
  }
  update();
  return result;
}

void run_search(SearchAgent& agent, env::TuningTask& task, int trials, int batch_size) {
  StopRule stop;
  stop.trials = task.trials() + trials;
  LoopOptions options;
  options.batch_size = batch_size;
  run_search_loop(agent, task, stop, options);
}

}  // namespace tessera::agents
