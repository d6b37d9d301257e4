// The tuning task as an RL environment (see task_env.h).
#include "env/task_env.h"

#include <algorithm>
#include <cmath>

#include "schedule/features.h"

namespace tessera::env {
namespace {

constexpr int kStartAttempts = 64;

}  // namespace

std::vector<float> Observation::flat() const {
  std::vector<float> out = knobs;
  out.insert(out.end(), features.begin(), features.end());
  return out;
}

TaskEnv::TaskEnv(const TuningTask& task, std::shared_ptr<CostModel> model, EnvOptions options)
    : task_(&task),
      owned_feeder_(std::make_shared<ModelFeeder>(std::move(model))),
      feeder_(owned_feeder_.get()),
      options_(options),
      rng_(0) {}

TaskEnv::TaskEnv(const TuningTask& task, ModelFeeder& feeder, EnvOptions options)
    : task_(&task), feeder_(&feeder), options_(options), rng_(0) {}

int TaskEnv::action_count(int sketch) const {
  const auto& space = task_->sketches()[static_cast<size_t>(sketch)].knobs;
  int n = 0;
  for (size_t k = 0; k < space.size(); ++k) n += space.move_count(k);
  return n;
}

int TaskEnv::observation_size(int sketch) const {
  const auto& space = task_->sketches()[static_cast<size_t>(sketch)].knobs;
  int n = 0;
  for (const auto& knob : space.knobs()) {
    n += knob.kind == schedule::KnobKind::kTile ? static_cast<int>(knob.domain.front().size()) : 1;
  }
  return n + static_cast<int>(schedule::feature_names().size());
}

std::optional<Candidate> TaskEnv::peek(int action) const {
  const auto& space = task_->sketch(candidate_).knobs;
  for (size_t k = 0; k < space.size(); ++k) {
    int moves = space.move_count(k);
    if (action < moves) {
      if (action < 0) return std::nullopt;
      auto next = space.apply_move(candidate_.knobs, k, action);
      if (!next) return std::nullopt;
      return Candidate{candidate_.sketch, std::move(*next)};
    }
    action -= moves;
  }
  return std::nullopt;
}

std::vector<bool> TaskEnv::action_mask() const {
  std::vector<bool> mask(static_cast<size_t>(action_count()));
  for (int a = 0; a < static_cast<int>(mask.size()); ++a) mask[static_cast<size_t>(a)] = peek(a).has_value();
  return mask;
}

bool TaskEnv::evaluate(const Candidate& c, std::vector<float>* features, double* score, std::string* reason) const {
  auto f = feeder_->features(*task_, c);  // applies, lowers and featurizes once per feeder
  if (!f) {
    *reason = f.error().message;
    return false;
  }
  *score = feeder_->score(*task_, {c}).at(0);
  *features = std::move(*f);
  return true;
}

Observation TaskEnv::observe() const {
  Observation o;
  o.sketch = candidate_.sketch;
  const auto& space = task_->sketch(candidate_).knobs;
  for (size_t k = 0; k < space.size(); ++k) {
    const auto& knob = space.knobs()[k];
    if (knob.kind == schedule::KnobKind::kTile) {
      const auto& factors = space.value(candidate_.knobs, k);
      double extent = 1;
      for (int64_t f : factors) extent *= static_cast<double>(f);
      for (int64_t f : factors) {
        o.knobs.push_back(extent > 1 ? static_cast<float>(std::log2(static_cast<double>(f)) / std::log2(extent)) : 0.f);
      }
    } else {
      size_t size = knob.domain.size();
      o.knobs.push_back(size > 1 ? static_cast<float>(candidate_.knobs[k]) / static_cast<float>(size - 1) : 0.f);
    }
  }
  o.features = features_;
  return o;
}

EnvInfo TaskEnv::info() const {
  EnvInfo i;
  i.score = score_;
  i.candidate = candidate_;
  i.steps = steps_;
  i.action_mask = action_mask();
  return i;
}

std::pair<Observation, EnvInfo> TaskEnv::reset(uint64_t seed, int sketch) {
  rng_.seed(seed);
  std::string reason;
  for (int attempt = 0; attempt < kStartAttempts; ++attempt) {
    Candidate c = task_->sample(rng_, sketch);
    if (evaluate(c, &features_, &score_, &reason)) {
      candidate_ = std::move(c);
      steps_ = 0;
      return {observe(), info()};
    }
  }
  // Every sampled start was refused: start anyway, with the reason, so callers never throw.
  candidate_ = task_->sample(rng_, sketch >= 0 ? sketch : 0);
  features_.assign(schedule::feature_names().size(), 0.f);
  score_ = 0;
  steps_ = 0;
  EnvInfo i = info();
  i.valid = false;
  i.reason = "no valid start found in " + std::to_string(kStartAttempts) + " samples: " + reason;
  return {observe(), i};
}

std::pair<Observation, EnvInfo> TaskEnv::reset(uint64_t seed, const Candidate& start) {
  rng_.seed(seed);
  candidate_ = start;
  steps_ = 0;
  std::string reason;
  EnvInfo i;
  if (!evaluate(start, &features_, &score_, &reason)) {
    features_.assign(schedule::feature_names().size(), 0.f);
    score_ = 0;
    i = info();
    i.valid = false;
    i.reason = reason;
    return {observe(), i};
  }
  return {observe(), info()};
}

StepResult TaskEnv::step(int action) {
  StepResult r;
  ++steps_;
  auto next = peek(action);
  std::vector<float> features;
  double score = 0;
  std::string reason;
  bool valid = next && evaluate(*next, &features, &score, &reason);
  if (!next) reason = "action " + std::to_string(action) + " is not legal here";
  if (valid) {
    r.reward = score - score_;
    candidate_ = std::move(*next);
    features_ = std::move(features);
    score_ = score;
  } else {
    r.reward = -options_.invalid_penalty;
  }
  r.observation = observe();
  r.info = info();
  r.info.valid = valid;
  r.info.reason = reason;
  const auto& mask = r.info.action_mask;
  r.terminated = std::find(mask.begin(), mask.end(), true) == mask.end();
  r.truncated = !r.terminated && steps_ >= options_.max_steps;
  return r;
}

}  // namespace tessera::env
