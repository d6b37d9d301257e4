// Task allocators replayed on the searches real network tunes ran: no compiling, no timing
// (issue 22). A network tune's rounds.jsonl holds, per task, its search's trajectory: the
// task's best after each round and the round's seconds. A replay gives an allocator
// (agents/task_allocator.h, the same code `tessera tune` runs) a NetworkEnv whose k-th round of
// a task returns that task's k-th logged round, taken from the run that gave the task the most
// rounds; a task asked for more rounds than any run gave it is exhausted there, and one whose
// search ran out in that run (its last round logged as exhausted) runs out at the same round.
// Every allocator so meets the same searches at the same seconds, without the machine's noise
// and without one run's luck on a heavy task, and an allocator change is judged in seconds
// instead of an hour. Given a run's own rounds, the allocator that ran it makes its choices
// again, round for round.
//
// Traces from runs after the first are scaled so that each task's first round (its default
// schedules) reads as in the first run: runs tuned one after another meet the machine at
// different speeds, and a replay compares searches, not minutes. What a replay cannot see:
// rounds no run ran (a trace's end counts as convergence; `trace_ends` says how often an
// allocator hit one) and the shared cost model, which learns from whichever tasks were tuned.
// Replaying one run alone with its own allocator gives back that run's curve.
//
// Used by `bench/run.sh allocator_replay` and by the allocator tests on the traces shipped in
// tests/data/network_traces/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "schedule/result.h"
#include "env/network_env.h"

namespace tessera::experiments {

struct ReplayTask {
  env::NetworkTask task;
  std::vector<env::RoundResult> trace;  // the longest logged trajectory of this task
  double defaults_seconds = 0;          // its first round in the first run: the level traces are put on
};

struct ReplayedTraces {
  std::vector<ReplayTask> tasks;
  double longest_seconds = 0;         // the longest run's wall seconds: the default budget
  std::vector<std::string> warnings;  // rounds.jsonl lines skipped (a half-written line after a kill)
};

// Reads each run directory's summary.json (the tasks) and rounds.jsonl (their searches). All
// runs must be of one network; errors name the file and what is wrong.
Result<ReplayedTraces> load_replay_traces(const std::vector<std::string>& run_dirs);

// One choice of the allocator: the task it gave a round to, why (TaskAllocator::reason), and
// where the clock and the estimate stood after that round.
struct ReplayChoice {
  std::string task;
  std::string reason;
  double seconds = 0;      // the clock after the round
  double estimate_ms = 0;  // the network estimate after the round (inf before every task has a kernel)
};

struct ReplayCurve {
  std::vector<std::pair<double, double>> points;  // (seconds, estimated network ms) after each round
  int rounds = 0;
  int trace_ends = 0;                          // rounds asked beyond every logged trace
  std::map<std::string, int> rounds_at_half;   // per task, its rounds at half the budget
  std::vector<ReplayChoice> choices;           // every round, in order
  double at(double seconds) const;             // the estimate (ms) when the clock passed `seconds`; NaN before any
};

// Runs allocator `name` (agents::make_allocator) on the traces for `budget` seconds.
Result<ReplayCurve> replay_allocator(const std::string& name, const std::vector<ReplayTask>& tasks, double budget,
                                     uint64_t seed);

}  // namespace tessera::experiments
