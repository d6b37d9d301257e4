// ModelFeeder: keeps a cost model in step with a task's measurements and scores candidates,
// caching their features (and, for models that read them, their schedule steps). Everything that
// ranks with a model scores through one: the agents (evolutionary, harl's sources) and TaskEnv,
// whose trajectories revisit the candidates the other sources have featurized.
#pragma once

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "env/cost_model.h"
#include "env/tuning_task.h"

namespace tessera::env {

inline constexpr float kUnscorable = -std::numeric_limits<float>::infinity();

class ModelFeeder {
 public:
  explicit ModelFeeder(std::shared_ptr<CostModel> model) : model_(std::move(model)) {}

  // Gives the model every measurement of `task` it has not seen (restored ones included) and
  // retrains it when there were any; returns how many were new.
  int update(const TuningTask& task);
  // One score per candidate; kUnscorable for those whose schedule is refused.
  std::vector<float> score(const TuningTask& task, const std::vector<Candidate>& candidates);
  // The features of `c` (cached), or the reason its schedule is refused.
  Result<std::vector<float>> features(const TuningTask& task, const Candidate& c);

  const std::shared_ptr<CostModel>& model() const { return model_; }
  size_t fed() const { return fed_.size(); }
  size_t featurized() const { return features_.size(); }  // candidates whose features are cached

 private:
  void extract(const TuningTask& task, const std::vector<Candidate>& candidates);

  std::shared_ptr<CostModel> model_;
  std::set<Candidate> fed_;
  std::map<Candidate, std::optional<std::vector<float>>> features_;
  std::map<Candidate, std::vector<std::string>> steps_;  // for models that read steps
};

}  // namespace tessera::env
