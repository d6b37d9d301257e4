// PpoSource ("ppo"): PPO trajectories on the proxy, one knob edit per step.
//
// For each trajectory a sliding-window UCB bandit picks a sketch; the trajectory starts from
// one of that sketch's measured bests (with probability `start_from_best`) or from the
// best-scored unused candidate of the sketch in the round's pool, and the sketch's PPO agent
// edits one knob per step in a TaskEnv, rewarded by the change in the proxy's score; it stops
// after `patience` steps without a gain or at the length limit (ExplorationSettings). The
// agents then update. It proposes every candidate the trajectories visited. The bandit is
// rewarded only by this source's own measured candidates: per sketch, how close the best came
// to (or beat) the task's best before the batch.
//
// With a `state_dir`, each sketch's agent is saved there after every update and restored from
// there when first needed, so a resumed run keeps what its agents learned.
#pragma once

#include <map>
#include <memory>

#include "agents/rl/candidate_source.h"
#include "agents/rl/ppo.h"
#include "agents/sliding_window_ucb.h"

namespace tessera::agents::rl {

struct PpoSourceOptions {
  double start_from_best = 0.7;
  int bandit_window = 64;
  double bandit_c = 0.5;
  PpoOptions ppo;
  std::string state_dir;  // empty: agents are not kept
};

// What the last round's trajectories did (AdaptiveExploration reads the last two).
struct TrajectoryStats {
  int trajectories = 0, steps = 0;
  double gain_per_step = 0, share_still_improving = 0;
};

class PpoSource : public CandidateSource {
 public:
  explicit PpoSource(PpoSourceOptions options) : options_(std::move(options)) {}
  std::string name() const override { return "ppo"; }
  Scored propose(const SourceInput& input) override;
  void observe(const env::TuningTask& task, const std::vector<env::Measurement>& measured,
               double best_before) override;

  const TrajectoryStats& last_round() const { return stats_; }
  const SlidingWindowUcb* bandit() const { return bandit_.get(); }
  int restored_agents() const { return restored_agents_; }
  // Agent files that could not be read or written (the agent then starts afresh / goes unsaved).
  const std::vector<std::string>& state_errors() const { return state_errors_; }

 private:
  using Starts = std::map<int, Scored>;  // per sketch, best-scored last
  env::Candidate start_for(const SourceInput& in, int sketch, Starts& starts);
  PpoAgent& agent_for(int sketch, int observation_size, int actions, std::mt19937_64& rng);
  std::string state_path(int sketch) const;
  void save_agents();

  PpoSourceOptions options_;
  std::unique_ptr<SlidingWindowUcb> bandit_;
  std::map<int, PpoAgent> agents_;  // per sketch
  TrajectoryStats stats_;
  int restored_agents_ = 0;
  std::vector<std::string> state_errors_;
};

}  // namespace tessera::agents::rl
