// ModelFeeder: keeps a cost model in step with a task's measurements and scores candidates,
// caching their features (and, for models that read them, their schedule steps). Shared by the
// agents that rank with a model (evolutionary, harl).
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

namespace tessera::agents {

inline constexpr float kUnscorable = -std::numeric_limits<float>::infinity();

class ModelFeeder {
 public:
  explicit ModelFeeder(std::shared_ptr<env::CostModel> model) : model_(std::move(model)) {}

  // Gives the model every measurement of `task` it has not seen (restored ones included) and
  // retrains it when there were any; returns how many were new.
  int update(const env::TuningTask& task);
  // One score per candidate; kUnscorable for those whose schedule is refused.
  std::vector<float> score(const env::TuningTask& task, const std::vector<env::Candidate>& candidates);

  const std::shared_ptr<env::CostModel>& model() const { return model_; }
  size_t fed() const { return fed_.size(); }

 private:
  void extract(const env::TuningTask& task, const std::vector<env::Candidate>& candidates);

  std::shared_ptr<env::CostModel> model_;
  std::set<env::Candidate> fed_;
  std::map<env::Candidate, std::optional<std::vector<float>>> features_;
  std::map<env::Candidate, std::vector<std::string>> steps_;  // for models that read steps
};

}  // namespace tessera::agents
