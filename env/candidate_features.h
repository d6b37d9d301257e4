// Program features of a task's candidates: sketch + knobs -> schedule -> LoopNest -> features.
//
// The bridge between the search space (candidates) and cost models (feature vectors). Batched
// extraction runs on all cores with TBB; a candidate whose schedule is refused or fails to
// lower has no features and should be ranked last (the single form says why). Models that read
// the schedule steps get them from `candidate_steps`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "env/tuning_task.h"

namespace tessera::env {

Result<std::vector<float>> candidate_features(const TuningTask& task, const Candidate& c);

std::vector<std::optional<std::vector<float>>> candidate_features(
    const TuningTask& task, const std::vector<Candidate>& candidates);

// The candidate's schedule steps in order, each as its JSON text: what cost models that read
// the schedule itself (CostModel::reads_steps) see instead of hand-made features.
std::vector<std::string> candidate_steps(const TuningTask& task, const Candidate& c);

}  // namespace tessera::env
