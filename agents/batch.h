// Batch selection for model-guided agents: the best-scored unmeasured candidates, then an
// ε share of uniformly random unmeasured ones so a misleading model cannot trap the search.
// Slots may be reserved per sketch, so a model that ranks one sketch's candidates above
// another's cannot keep the other sketch unmeasured. A spread batch takes a candidate one knob
// away from one it already holds only when no other is left: a model's best-scored are often
// one point's neighbours along one knob, and measuring them all spends a batch on one basin.
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
// has fewer unmeasured candidates); the rest go by score across sketches. With `spread`, each
// of those two passes first skips candidates that differ from a chosen one in at most one knob.
Batch select_batch(const env::TuningTask& task, std::vector<std::pair<double, env::Candidate>> scored, int count,
                   double epsilon, std::mt19937_64& rng, const std::map<int, int>& reserved = {},
                   bool spread = false);

}  // namespace tessera::agents
