// NetworkEnv: a whole network's tuning as an RL environment for the top level of the search.
//
// A network is a set of weighted tasks (graph/fuse.h makes them from a model; one task per
// distinct kernel, weight = how often it runs). The objective is the estimated end-to-end
// latency, sum over tasks of weight x best latency so far (a task not yet measured counts
// with its first correct measurement; until then the estimate is unknown for it). An action
// picks the task that gets the next round of trials; the round itself is run by the caller's
// `RunRound` (the per-task search agent lives in agents/, above this layer). The reward is the
// estimate's reduction per second of tuning. Gymnasium semantics as TaskEnv has: reset ->
// (observation, info); step -> observation, reward, terminated (no task can go on),
// truncated (budget spent), info.
//
// Allocators (agents/task_allocator.h) read the observation; only what a scheduler could know
// is in it: per task its best latency, trials, seconds, recent improvement, FLOPs, weight and
// an op tag with a FLOP class (Ansor's notion of similar tasks).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tessera::env {

struct NetworkTask {
  std::string name;
  std::string op_tag;   // what kind of kernel (e.g. "conv2d", "dense", "softmax")
  double flops = 0;     // per call
  int weight = 1;       // calls per inference
};

struct TaskView {
  double best_seconds = std::numeric_limits<double>::infinity();  // inf: nothing correct yet
  int trials = 0;
  int rounds = 0;
  double seconds = 0;                  // tuning time spent on this task
  std::vector<double> best_history;    // best_seconds after each round (inf before the first)
  bool exhausted = false;              // its agent has nothing more to propose
  double recent_improvement() const;   // relative drop of the best over the last 3 rounds
};

struct NetworkObservation {
  std::vector<NetworkTask> tasks;
  std::vector<TaskView> views;
  double estimate_seconds = std::numeric_limits<double>::infinity();  // sum of weight x best
  double elapsed_seconds = 0;
  int rounds = 0;
  // Tasks Ansor would call similar to `i`: same op tag and floor(log_1.618(FLOPs + 1)).
  std::vector<int> similar(int i) const;
};

struct RoundResult {
  double best_seconds = std::numeric_limits<double>::infinity();
  int trials = 0;         // the task's trials after the round
  double seconds = 0;     // wall time of the round
  bool exhausted = false;
  // Where the round's time went: choosing its candidates (the search agent's propose and
  // observe) and measuring them (compiling, running, checking). For the log; 0 when unknown.
  double search_seconds = 0;
  double measure_seconds = 0;
};

struct NetworkStep {
  double reward = 0;      // estimate reduction per second of the round
  bool terminated = false;
  bool truncated = false;
  std::string info;       // what happened, for the log
};

class NetworkEnv {
 public:
  using RunRound = std::function<RoundResult(int task)>;
  // `budget_rounds` <= 0: no round limit; `budget_seconds` <= 0: no time limit.
  NetworkEnv(std::vector<NetworkTask> tasks, RunRound run_round, int budget_rounds, double budget_seconds);

  // Takes the state of tasks tuned before (a resumed run, after `replay` of its logged rounds):
  // the records' trials (set) and seconds (added). The records' best is taken for a task no
  // round was replayed for; after replayed rounds only a killed round's trials can lower it,
  // and a task the rounds left exhausted stays so.
  void restore(int task, const RoundResult& state);
  // Adds tuning time spent before a resume (it counts against the time budget).
  void restore_elapsed(double seconds) { obs_.elapsed_seconds += seconds; }
  const NetworkObservation& reset();
  NetworkStep step(int task);
  // A round run before a resume, as the run's round log kept it: the same bookkeeping as step
  // (views, estimate, reward) without running it, so that the allocator can be shown the rounds
  // it chose before and a resumed run goes on where it stopped.
  NetworkStep replay(int task, const RoundResult& round);
  const NetworkObservation& observation() const { return obs_; }

 private:
  void update_estimate();
  NetworkStep record(int task, const RoundResult& round);
  RunRound run_round_;
  int budget_rounds_;
  double budget_seconds_;
  NetworkObservation obs_;
};

}  // namespace tessera::env
