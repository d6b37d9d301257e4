// Greedy ascent on the cost model (see hill_climb.h).
#include "agents/hill_climb.h"

#include <algorithm>
#include <vector>

namespace tessera::agents {

HillClimbStats hill_climb(const env::TuningTask& task, ModelFeeder& feeder,
                          std::map<env::Candidate, double>& scored, const HillClimbOptions& options) {
  std::vector<std::pair<double, env::Candidate>> starts(scored.size());
  std::transform(scored.begin(), scored.end(), starts.begin(), [](const auto& e) { return std::pair{e.second, e.first}; });
  const size_t count = std::min(starts.size(), static_cast<size_t>(std::max(0, options.starts)));
  std::partial_sort(starts.begin(), starts.begin() + static_cast<long>(count), starts.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });

  HillClimbStats stats;
  for (size_t s = 0; s < count; ++s) {
    auto [score, at] = starts[s];
    for (int step = 0; step < options.steps; ++step) {
      std::vector<env::Candidate> neighbours, fresh;
      for (schedule::KnobValues& values : task.sketch(at).knobs.neighbours(at.knobs)) {
        env::Candidate next{at.sketch, std::move(values)};
        if (!scored.count(next)) fresh.push_back(next);
        neighbours.push_back(std::move(next));
      }
      const std::vector<float> scores = feeder.score(task, fresh);
      stats.scored += static_cast<int>(fresh.size());
      for (size_t i = 0; i < fresh.size(); ++i) {
        if (scores[i] != kUnscorable) scored.emplace(fresh[i], scores[i]);
      }
      const env::Candidate* best = nullptr;
      double best_score = score;
      for (const env::Candidate& n : neighbours) {
        auto known = scored.find(n);
        if (known != scored.end() && known->second > best_score) best_score = known->second, best = &n;
      }
      if (!best) break;  // a local optimum of the model
      at = *best, score = best_score;
      ++stats.moves;
    }
  }
  return stats;
}

}  // namespace tessera::agents
