// PpoAgent: an actor-critic learner for one discrete, masked action space (LibTorch inside).
//
// The actor maps an observation to logits over actions; illegal actions (mask false) get no
// probability. The critic estimates the observation's value. Transitions are recorded per
// trajectory; `update` computes advantages with GAE(γ, λ), normalizes them, and runs `epochs`
// passes of shuffled minibatches of the clipped PPO objective (plus a value loss and an entropy
// bonus). Observations are standardized with running statistics. Defaults follow the issue:
// clip 0.2, λ 0.95, γ 0.9, two hidden layers of 128 units. Sampling uses the agent's own
// seeded generator, so runs repeat. `save` / `load` keep the networks, the optimizer's moments
// and the observation statistics together, so a resumed run continues where it stopped.
//
// The header is torch-free: agents/rl/ is the only agents code that links LibTorch. Code map:
// ppo.cc acts, records and closes trajectories (GAE advantages); ppo_update.cc is the clipped
// update; ppo_checkpoint.cc saves and loads; ppo_state.h is the state they share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedule/result.h"

namespace tessera::agents::rl {

struct PpoOptions {
  double clip = 0.2;
  double gae_lambda = 0.95;
  double gamma = 0.9;
  std::vector<int> hidden = {128, 128};
  double learning_rate = 3e-4;
  int epochs = 4;
  int minibatch = 64;
  double entropy_coef = 0.01;
  double value_coef = 0.5;
  uint64_t seed = 1;
};

struct PpoDecision {
  int action = -1;
  float log_prob = 0;
  float value = 0;
};

struct PpoUpdate {
  int samples = 0;
  double policy_loss = 0;
  double value_loss = 0;
  double entropy = 0;
};

class PpoAgent {
 public:
  PpoAgent(int observation_size, int action_count, PpoOptions options = {});
  ~PpoAgent();
  PpoAgent(PpoAgent&&) noexcept;
  PpoAgent& operator=(PpoAgent&&) noexcept;

  int observation_size() const;
  int action_count() const;

  // Samples an action among the legal ones (the most probable when `greedy`). A mask with no
  // legal action gives action -1.
  PpoDecision act(const std::vector<float>& observation, const std::vector<bool>& mask, bool greedy = false);
  // Records the step `decision` took from `observation` and the reward it got.
  void record(const PpoDecision& decision, double reward);
  // Closes the trajectory: `bootstrap` is the value after the last step (0 if terminated).
  void end_trajectory(double bootstrap);
  // The critic's value of an observation.
  float value(const std::vector<float>& observation);
  // Learns from the closed trajectories and forgets them.
  PpoUpdate update();
  size_t recorded() const;

  // Writes the learned state to `path`; `load` refuses a file of another observation or action
  // size, or not a PPO file, by name and leaves the agent as it was.
  Result<void> save(const std::string& path) const;
  Result<void> load(const std::string& path);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::agents::rl
