// Candidate feature extraction (see candidate_features.h).
#include "env/candidate_features.h"

#include <tbb/parallel_for.h>

#include "schedule/features.h"
#include "schedule/lower.h"
#include "schedule/step_json.h"

#include <nlohmann/json.hpp>

namespace tessera::env {

Result<std::vector<float>> candidate_features(const TuningTask& task, const Candidate& c) {
  auto state = schedule::apply_candidate(task.dag(), task.sketch(c), c.knobs);
  if (!state) return state.error();
  auto func = schedule::lower(*state, "kernel");
  if (!func) return func.error();
  return schedule::extract_features(*func);
}

std::vector<std::optional<std::vector<float>>> candidate_features(
    const TuningTask& task, const std::vector<Candidate>& candidates) {
  std::vector<std::optional<std::vector<float>>> out(candidates.size());
  tbb::parallel_for(size_t{0}, candidates.size(), [&](size_t i) {
    if (auto f = candidate_features(task, candidates[i])) out[i] = std::move(*f);
  });
  return out;
}

std::vector<std::string> candidate_steps(const TuningTask& task, const Candidate& c) {
  std::vector<std::string> out;
  for (const schedule::Step& step : task.sketch(c).steps(c.knobs)) out.push_back(schedule::step_to_json(step).dump());
  return out;
}

}  // namespace tessera::env
