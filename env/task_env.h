// TaskEnv: one tuning task as a reinforcement-learning environment, with Gymnasium's semantics.
//
//   reset(seed[, start]) -> observation, info          step(action) -> observation, reward,
//                                                                      terminated, truncated, info
// A state is a candidate (sketch + knob values). An action is one knob edit: knob k's move m
// (KnobSpace::apply_move) flattened to one integer over the sketch's knobs, with a legal-action
// mask. The observation is the sketch id, the knob values encoded in [0, 1] (tile factors as
// log2 factor / log2 extent, other knobs as index / (size - 1)) and the program features; its
// length is fixed per sketch. The reward is the change in the cost model's predicted score. A
// move whose schedule is refused, or an illegal action, never throws: it costs
// `invalid_penalty`, leaves the state as it was and says why in info. An episode is truncated
// after `max_steps` steps and terminates only when no action is legal. Every info carries the
// legal-action mask of the state it describes. Everything is seeded
// (the cost model's own cold-start randomness aside) and `clone()` copies the state exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "env/cost_model.h"
#include "env/model_feeder.h"
#include "env/tuning_task.h"

namespace tessera::env {

struct Observation {
  int sketch = -1;
  std::vector<float> knobs;     // encoded knob values
  std::vector<float> features;  // program features (zeros for a refused candidate)
  std::vector<float> flat() const;  // knobs then features: the policy's input
};

struct EnvInfo {
  bool valid = true;         // false: the action was illegal or its schedule refused
  std::string reason;        // why, when not valid
  double score = 0;          // the cost model's score of the current candidate
  Candidate candidate;       // the current candidate
  int steps = 0;             // steps taken this episode
  std::vector<bool> action_mask;  // legal actions from the current candidate
};

struct StepResult {
  Observation observation;
  double reward = 0;
  bool terminated = false;
  bool truncated = false;
  EnvInfo info;
};

struct EnvOptions {
  int max_steps = 32;
  double invalid_penalty = 1.0;
};

class TaskEnv {
 public:
  // Scores with `model` through a feeder of its own.
  TaskEnv(const TuningTask& task, std::shared_ptr<CostModel> model, EnvOptions options = {});
  // Scores through `feeder` (not owned; it must outlive the env and its clones), sharing its
  // feature cache with whatever else scores through it.
  TaskEnv(const TuningTask& task, ModelFeeder& feeder, EnvOptions options = {});

  // A random valid start in `sketch` (any sketch when -1), drawn from `seed`.
  std::pair<Observation, EnvInfo> reset(uint64_t seed, int sketch = -1);
  // Starts from a given candidate (e.g. a measured best); the rng is reseeded from `seed`.
  std::pair<Observation, EnvInfo> reset(uint64_t seed, const Candidate& start);
  StepResult step(int action);

  // Actions of the current sketch: sum over knobs of KnobSpace::move_count.
  int action_count() const { return action_count(candidate_.sketch); }
  int action_count(int sketch) const;
  std::vector<bool> action_mask() const;
  int observation_size(int sketch) const;
  // The candidate an action leads to (std::nullopt when illegal), without stepping.
  std::optional<Candidate> peek(int action) const;

  const Candidate& candidate() const { return candidate_; }
  double score() const { return score_; }
  TaskEnv clone() const { return *this; }
  std::mt19937_64& rng() { return rng_; }

 private:
  // Features and score of `c`, or the reason it is refused.
  bool evaluate(const Candidate& c, std::vector<float>* features, double* score, std::string* reason) const;
  Observation observe() const;
  EnvInfo info() const;

  const TuningTask* task_;
  std::shared_ptr<ModelFeeder> owned_feeder_;  // set by the model constructor
  ModelFeeder* feeder_;
  EnvOptions options_;
  std::mt19937_64 rng_;
  Candidate candidate_;
  std::vector<float> features_;
  double score_ = 0;
  int steps_ = 0;
};

}  // namespace tessera::env
