// Batch selection for model-guided agents: the best-scored unmeasured candidates, then an
// ε share of uniformly random unmeasured ones so a misleading model cannot trap the search.
// Slots may be reserved per sketch, so a model that ranks one sketch's candidates above
// another's cannot keep the other sketch unmeasured.
#pragma once

#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "env/tuning_task.h"

namespace tessera::agents {

struct Batch {
  std::vector<env::Candidate> candidates;
  std::set<env::Candidate> random;  // the ε picks among them
};

// `scored` pairs (score, candidate), any order, duplicates allowed; higher is better.
// `reserved` maps a sketch to the slots its best-scored candidates fill first (fewer when it
// has fewer unmeasured candidates); the rest go by score across sketches.
Batch select_batch(const env::TuningTask& task, std::vector<std::pair<double, env::Candidate>> scored, int count,
                   double epsilon, std::mt19937_64& rng, const std::map<int, int>& reserved = {});

}  // namespace tessera::agents
