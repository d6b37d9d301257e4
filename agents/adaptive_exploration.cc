// Exploration settings that follow the rate of improvement (see adaptive_exploration.h).
#include "agents/adaptive_exploration.h"

#include <algorithm>
#include <cmath>

namespace tessera::agents {

void AdaptiveExploration::after_trajectories(double gain_per_step, double share_still_improving) {
  if (!adaptive_) return;
  ExplorationSettings& s = settings_;
  if (share_still_improving > 0.5) {
    s.trajectory_length = static_cast<int>(std::ceil(s.trajectory_length * 1.5));
  } else if (share_still_improving < 0.1) {
    s.trajectory_length = static_cast<int>(s.trajectory_length * 0.75);
  }
  s.trajectory_length = std::clamp(s.trajectory_length, bounds_.min_length, bounds_.max_length);
  if (rounds_ > 0) {
    if (gain_per_step > average_gain_) {
      s.trajectories = static_cast<int>(std::ceil(s.trajectories * 1.25));
    } else if (gain_per_step < 0.5 * average_gain_) {
      s.trajectories = static_cast<int>(s.trajectories * 0.8);
    }
    s.trajectories = std::clamp(s.trajectories, bounds_.min_trajectories, bounds_.max_trajectories);
  }
  average_gain_ = rounds_ == 0 ? gain_per_step : 0.7 * average_gain_ + 0.3 * gain_per_step;
  ++rounds_;
}

void AdaptiveExploration::after_measurement(double random_best_throughput, double model_best_throughput) {
  if (!adaptive_) return;
  double& eps = settings_.epsilon;
  eps = random_best_throughput > model_best_throughput ? eps * 1.5 : eps * 0.9;
  eps = std::clamp(eps, bounds_.min_epsilon, bounds_.max_epsilon);
}

void AdaptiveExploration::after_round(double best_before, double best_after) {
  if (!adaptive_) return;
  double& share = settings_.fresh_share;
  share = best_after > best_before * (1 + bounds_.stall_gain) ? share / 2 : share + 0.125;
  share = std::clamp(share, 0.0, bounds_.max_fresh_share);
}

}  // namespace tessera::agents
