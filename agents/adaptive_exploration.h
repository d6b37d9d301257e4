// AdaptiveExploration: how long and how widely a search explores, following its own progress.
//
// After each round of proxy trajectories it is told the mean predicted gain per step and the
// share of trajectories that were still improving when they hit their length limit:
//   - trajectories still improving at the limit (> 50%) lengthen the limit by half; few
//     (< 10%) shorten it by a quarter;
//   - a gain rate above its running average adds trajectories (the landscape is paying off);
//     below half of it removes some.
// After each measurement it is told the best throughput of the random (ε) picks and of the
// model's picks: random beating the model raises ε by half (the model is misleading), else ε
// decays by 10%. After each round it is told the task's best throughput before and after:
// a round that did not raise it by `stall_gain` (0.3%) raises `fresh_share`, the part of the
// next batch the caller fills from elsewhere than its own proposals (harl: the evolved
// source's extra quota), by 1/8; a round that did halves it, so a stalled search leaves its
// basin (why: bench/NOTES.md).
// Everything stays within the bounds; with `adaptive` false the settings never
// change (the fixed-settings baseline). Trajectories also stop after `patience` steps without
// a gain, which the caller applies.
#pragma once

namespace tessera::agents {

struct ExplorationSettings {
  int trajectory_length = 16;
  int trajectories = 32;
  double epsilon = 0.05;
  int patience = 4;
  double fresh_share = 0;  // of the batch, for candidates from elsewhere (harl: evolution)
};

struct ExplorationBounds {
  int min_length = 4, max_length = 64;
  int min_trajectories = 8, max_trajectories = 128;
  double min_epsilon = 0.02, max_epsilon = 0.3;
  double max_fresh_share = 0.5;
  double stall_gain = 0.003;  // a round raising the best by less has stalled
};

class AdaptiveExploration {
 public:
  explicit AdaptiveExploration(ExplorationSettings start = {}, bool adaptive = true, ExplorationBounds bounds = {})
      : settings_(start), bounds_(bounds), adaptive_(adaptive) {}

  const ExplorationSettings& settings() const { return settings_; }
  void after_trajectories(double gain_per_step, double share_still_improving);
  void after_measurement(double random_best_throughput, double model_best_throughput);
  void after_round(double best_before, double best_after);

 private:
  ExplorationSettings settings_;
  ExplorationBounds bounds_;
  bool adaptive_;
  double average_gain_ = 0;
  int rounds_ = 0;
};

}  // namespace tessera::agents
