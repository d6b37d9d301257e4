// Greedy ascent on the cost model (see hill_climb.h).
#include "agents/hill_climb.h"

#include <set>

namespace tessera::agents {

HillClimbStats hill_climb(const env::TuningTask& task, ModelFeeder& feeder, const std::vector<env::Candidate>& starts,
                          int steps, std::map<env::Candidate, double>& scored) {
  HillClimbStats stats;
  std::vector<env::Candidate> unscored;
  for (const env::Candidate& c : starts) {
    if (!scored.count(c)) unscored.push_back(c);
  }
  const std::vector<float> start_scores = feeder.score(task, unscored);
  for (size_t i = 0; i < unscored.size(); ++i) {
    if (start_scores[i] != kUnscorable) scored.emplace(unscored[i], start_scores[i]);
  }
  for (const env::Candidate& start : starts) {
    auto known = scored.find(start);
    if (known == scored.end()) continue;
    env::Candidate at = start;
    double score = known->second;
    for (int step = 0; step < steps; ++step) {
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
        auto seen = scored.find(n);
        if (seen != scored.end() && seen->second > best_score) best_score = seen->second, best = &n;
      }
      if (!best) break;  // a local optimum of the model
      at = *best, score = best_score;
      ++stats.moves;
    }
  }
  return stats;
}

int scan_two_moves(const env::TuningTask& task, ModelFeeder& feeder, const std::vector<env::Candidate>& centres,
                   std::map<env::Candidate, double>& scored) {
  std::set<env::Candidate> ring;
  for (const env::Candidate& centre : centres) {
    const schedule::KnobSpace& space = task.sketch(centre).knobs;
    for (schedule::KnobValues& one : space.neighbours(centre.knobs)) {
      for (schedule::KnobValues& two : space.neighbours(one)) ring.insert({centre.sketch, std::move(two)});
      ring.insert({centre.sketch, std::move(one)});
    }
  }
  std::vector<env::Candidate> fresh;
  for (const env::Candidate& c : ring) {
    if (!scored.count(c)) fresh.push_back(c);
  }
  const std::vector<float> scores = feeder.score(task, fresh);
  for (size_t i = 0; i < fresh.size(); ++i) {
    if (scores[i] != kUnscorable) scored.emplace(fresh[i], scores[i]);
  }
  return static_cast<int>(fresh.size());
}

}  // namespace tessera::agents
