// Feeding and querying a cost model (see model_feeder.h).
#include "env/model_feeder.h"

#include <algorithm>

#include "env/candidate_features.h"

namespace tessera::env {
namespace {

constexpr size_t kFeatureCacheLimit = 400000;

}  // namespace

void ModelFeeder::extract(const TuningTask& task, const std::vector<Candidate>& candidates) {
  if (features_.size() > kFeatureCacheLimit) {
    features_.clear();
    steps_.clear();
  }
  std::vector<Candidate> missing;
  for (const Candidate& c : candidates) {
    if (!features_.count(c)) missing.push_back(c);
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end(),
                            [](const auto& a, const auto& b) { return !(a < b) && !(b < a); }),
                missing.end());
  auto extracted = candidate_features(task, missing);  // in parallel
  for (size_t i = 0; i < missing.size(); ++i) {
    if (model_->reads_steps() && extracted[i]) steps_[missing[i]] = candidate_steps(task, missing[i]);
    features_[missing[i]] = std::move(extracted[i]);
  }
}

int ModelFeeder::update(const TuningTask& task) {
  std::vector<Candidate> fresh;
  for (const auto& [candidate, m] : task.measurements()) {
    if (!fed_.count(candidate)) fresh.push_back(candidate);
  }
  if (fresh.empty()) return 0;
  extract(task, fresh);
  std::vector<ProxySample> samples;
  for (const Candidate& c : fresh) {
    fed_.insert(c);
    const auto& features = features_.at(c);
    if (!features) continue;
    samples.push_back({*features, task.measurements().at(c).throughput(), task.dag().workload_key(), {}});
    if (model_->reads_steps()) samples.back().steps = steps_.at(c);
  }
  model_->add(samples);
  model_->train();
  return static_cast<int>(fresh.size());
}

Result<std::vector<float>> ModelFeeder::features(const TuningTask& task, const Candidate& c) {
  extract(task, {c});
  const auto& cached = features_.at(c);
  if (cached) return *cached;
  return candidate_features(task, c);  // refused: lowered again, for the reason
}

std::vector<float> ModelFeeder::score(const TuningTask& task, const std::vector<Candidate>& candidates) {
  extract(task, candidates);
  std::vector<std::vector<float>> rows;
  std::vector<std::vector<std::string>> steps;
  std::vector<size_t> where;
  std::vector<float> scores(candidates.size(), kUnscorable);
  for (size_t i = 0; i < candidates.size(); ++i) {
    const auto& f = features_.at(candidates[i]);
    if (!f) continue;
    rows.push_back(*f);
    if (model_->reads_steps()) steps.push_back(steps_.at(candidates[i]));
    where.push_back(i);
  }
  if (rows.empty()) return scores;
  auto predicted = model_->reads_steps() ? model_->predict_with_steps(rows, steps) : model_->predict(rows);
  for (size_t r = 0; r < where.size(); ++r) scores[where[r]] = predicted[r];
  return scores;
}

}  // namespace tessera::env
