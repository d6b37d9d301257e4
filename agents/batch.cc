// Batch selection (see batch.h).
#include "agents/batch.h"

#include <algorithm>

namespace tessera::agents {

Batch select_batch(const env::TuningTask& task, std::vector<std::pair<double, env::Candidate>> scored, int count,
                   double epsilon, std::mt19937_64& rng, const std::map<int, int>& reserved) {
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const int random_share = static_cast<int>(count * epsilon + 0.5);
  Batch batch;
  std::set<env::Candidate> chosen;
  std::map<int, int> left = reserved;
  for (const auto& [score, c] : scored) {
    if (static_cast<int>(batch.candidates.size()) >= count - random_share) break;
    auto slots = left.find(c.sketch);
    if (slots == left.end() || slots->second <= 0) continue;
    if (!task.measured(c) && chosen.insert(c).second) batch.candidates.push_back(c), --slots->second;
  }
  for (const auto& [score, c] : scored) {
    if (static_cast<int>(batch.candidates.size()) >= count - random_share) break;
    if (!task.measured(c) && chosen.insert(c).second) batch.candidates.push_back(c);
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
