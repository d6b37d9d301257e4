// Batch selection (see batch.h).
#include "agents/batch.h"

#include <algorithm>

namespace tessera::agents {

namespace {

// Whether `c` differs from one of `chosen` (of its sketch) in at most one knob.
bool next_to_any(const env::Candidate& c, const std::vector<env::Candidate>& chosen) {
  for (const env::Candidate& o : chosen) {
    if (o.sketch != c.sketch || o.knobs.size() != c.knobs.size()) continue;
    int differ = 0;
    for (size_t k = 0; k < c.knobs.size() && differ < 2; ++k) differ += c.knobs[k] != o.knobs[k];
    if (differ < 2) return true;
  }
  return false;
}

}  // namespace

Batch select_batch(const env::TuningTask& task, std::vector<std::pair<double, env::Candidate>> scored, int count,
                   double epsilon, std::mt19937_64& rng, const std::map<int, int>& reserved, bool spread) {
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const int model_slots = count - static_cast<int>(count * epsilon + 0.5);
  Batch batch;
  std::set<env::Candidate> chosen;
  std::map<int, int> left = reserved;
  // One pass down the ranking: only into reserved slots, or into any; skipping neighbours of
  // the chosen, or not.
  auto fill = [&](bool reserved_only, bool spread_out) {
    for (const auto& [score, c] : scored) {
      if (static_cast<int>(batch.candidates.size()) >= model_slots) return;
      auto slots = left.find(c.sketch);
      if (reserved_only && (slots == left.end() || slots->second <= 0)) continue;
      if (task.measured(c) || chosen.count(c) || (spread_out && next_to_any(c, batch.candidates))) continue;
      chosen.insert(c);
      batch.candidates.push_back(c);
      if (reserved_only) --slots->second;
    }
  };
  for (bool reserved_only : {true, false}) {
    if (spread) fill(reserved_only, true);
    fill(reserved_only, false);
  }
  for (int attempt = 0; static_cast<int>(batch.candidates.size()) < count && attempt < count * 50; ++attempt) {
    env::Candidate c = task.sample(rng);
    if (task.measured(c) || !chosen.insert(c).second) continue;
    batch.random.insert(c);
    batch.candidates.push_back(std::move(c));
  }
  return batch;
}

}  // namespace tessera::agents
